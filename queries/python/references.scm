; Uses of names inside a symbol, for its same-file dependencies. A node
; captured as a local definition, ignored or a member is never a plain
; reference, whatever other pattern also captures it.

; Member access: `self.x` / `cls.x` is the enclosing class's member; any
; other receiver (`response.close()`) is not resolved through the file.
(attribute
  object: (identifier) @receiver.self
  attribute: (identifier) @reference.member
  (#any-of? @receiver.self "self" "cls"))
(attribute
  object: (_) @receiver
  attribute: (identifier) @reference.member
  (#not-any-of? @receiver "self" "cls"))

; Keyword argument names are neither uses nor bindings.
(keyword_argument name: (identifier) @ignore)

; Parameters and local bindings.
(parameters (identifier) @local.definition)
(lambda_parameters (identifier) @local.definition)
(default_parameter name: (identifier) @local.definition)
(typed_parameter (identifier) @local.definition)
(typed_default_parameter name: (identifier) @local.definition)
(list_splat_pattern (identifier) @local.definition)
(dictionary_splat_pattern (identifier) @local.definition)
(assignment left: (identifier) @local.definition)
(assignment left: (pattern_list (identifier) @local.definition))
(assignment left: (tuple_pattern (identifier) @local.definition))
(augmented_assignment left: (identifier) @local.definition)
(for_statement left: (identifier) @local.definition)
(for_statement left: (pattern_list (identifier) @local.definition))
(for_statement left: (tuple_pattern (identifier) @local.definition))
(for_in_clause left: (identifier) @local.definition)
(for_in_clause left: (pattern_list (identifier) @local.definition))
(for_in_clause left: (tuple_pattern (identifier) @local.definition))
(as_pattern alias: (as_pattern_target (identifier) @local.definition))
(named_expression name: (identifier) @local.definition)

; Where local bindings are visible.
(function_definition) @local.scope
(lambda) @local.scope
(list_comprehension) @local.scope
(set_comprehension) @local.scope
(dictionary_comprehension) @local.scope
(generator_expression) @local.scope

; Everything else named is a use.
(call function: (identifier) @reference.call)
(identifier) @reference

; `super().x` is a member of a base of the enclosing class.
(attribute
  object: (call function: (identifier) @_super) @receiver.super
  attribute: (identifier) @reference.member
  (#eq? @_super "super"))

; Bases: a class's superclasses (`class B(A)`, `class B(mod.A)`,
; `class B(Generic[T])`); a member of the same name in one is overridden.
(class_definition
  superclasses: (argument_list [(identifier) (attribute)] @base))
(class_definition
  superclasses: (argument_list (subscript value: (_) @base)))

; The type a local is declared with (`x: Foo`) or constructed from
; (`x = Foo(...)`): one named type only, so `x.m()` is `Foo`'s member.
(typed_parameter (identifier) @local.definition type: (type (identifier) @local.type))
(typed_default_parameter name: (identifier) @local.definition type: (type (identifier) @local.type))
(assignment left: (identifier) @local.definition type: (type (identifier) @local.type))
(assignment left: (identifier) @local.definition right: (call function: (identifier) @local.type))
