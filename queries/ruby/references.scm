; Uses of names inside a Ruby symbol, for its dependencies, references and
; rename. A node captured as a local definition, ignored or a member is
; never a plain reference. A bare `name` is a local when one is bound in
; scope, else a call on `self` (`implicit_self` in grammars/ruby.toml).

; `self.x`, `self.x = 1`: the enclosing class's member.
; A `call` is a wildcard root whose kind `#kind?` names: tree-sitter
; analyses a named root against the grammar when the query compiles, which
; for Ruby's `call` costs every first command about 10 ms a pattern.
((_
  receiver: (self) @receiver.self
  method: (_) @reference.member) @_c
  (#kind? @_c call))
; `obj.x`, `Mod::x`, `Const.new`: a member of another receiver.
((_
  receiver: (_) @receiver
  method: (_) @reference.member) @_c
  (#kind? @_c call))
(scope_resolution
  scope: (_) @receiver
  name: (_) @reference.member)

; `super` calls the base's method of the same name: not a use of a name.

; Parameters and local variables.
(method_parameters (identifier) @local.definition)
(lambda_parameters (identifier) @local.definition)
(block_parameters (identifier) @local.definition)
(optional_parameter name: (identifier) @local.definition)
(keyword_parameter name: (identifier) @local.definition)
(splat_parameter name: (identifier) @local.definition)
(hash_splat_parameter name: (identifier) @local.definition)
(block_parameter name: (identifier) @local.definition)
(destructured_parameter (identifier) @local.definition)
(assignment left: (identifier) @local.definition)
(assignment left: (left_assignment_list (identifier) @local.definition))
(operator_assignment left: (identifier) @local.definition)
(for pattern: (identifier) @local.definition)
(exception_variable (identifier) @local.definition)

; Where locals are visible: a method is a scope gate; blocks see their
; method's locals and add their own.
(method) @local.scope
(singleton_method) @local.scope
(block) @local.scope
(do_block) @local.scope
(lambda) @local.scope

; A keyword argument's or hash key's name is no use of a name.
(pair key: (hash_key_symbol) @ignore)

; Symbols may name a method (`send(:name)`, `respond_to?(:name)`,
; `alias_method :a, :b`, `before_action :name`): undecided.
(simple_symbol) @reference.maybe
(hash_key_symbol) @reference.maybe

; Everything else named is a use: a call without receiver, a local, a
; constant.
((_ method: (identifier) @reference.call) @_c
  (#kind? @_c call))
(identifier) @reference
(constant) @reference

; Bases: `class B < A`, `class B < Mod::A`.
(class superclass: (superclass [(constant) (scope_resolution)] @base))
