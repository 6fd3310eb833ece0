; Uses of names inside a PHP symbol, for its dependencies, references and
; rename. A node captured as a local definition, ignored or a member is
; never a plain reference. PHP needs `$this->` for members: a bare name is
; never one.

; `$this->x`, `$this->x()`: the enclosing class's member. A pattern's
; root is a wildcard whose kinds `#kind?` names, where several kinds share
; its shape: tree-sitter analyses each named root when the query compiles
; (every first command pays for it), not a wildcard.
((_
  object: (variable_name (name) @_this) @receiver.self
  name: (name) @reference.member) @_e
  (#eq? @_this "this")
  (#kind? @_e member_access_expression nullsafe_member_access_expression))
((_
  object: (variable_name (name) @_this) @receiver.self
  name: (name) @reference.member.call) @_e
  (#eq? @_this "this")
  (#kind? @_e member_call_expression nullsafe_member_call_expression))

; `self::X`, `static::f()`, `self::$p`: the enclosing class's member;
; `parent::f()`: its base's.
(scoped_call_expression
  scope: (relative_scope) @receiver.self
  name: (name) @reference.member.call
  (#any-of? @receiver.self "self" "static"))
(class_constant_access_expression
  (relative_scope) @receiver.self
  (name) @reference.member
  (#any-of? @receiver.self "self" "static"))
(scoped_property_access_expression
  scope: (relative_scope) @receiver.self
  name: (variable_name (name) @reference.member)
  (#any-of? @receiver.self "self" "static"))
(scoped_call_expression
  scope: (relative_scope) @receiver.super
  name: (name) @reference.member.call
  (#eq? @receiver.super "parent"))

; Other receivers: `$cart->total()`, `Cart::last()`, `Status::Open`.
((_
  object: (_) @receiver
  name: (name) @reference.member) @_e
  (#kind? @_e member_access_expression nullsafe_member_access_expression))
((_
  object: (_) @receiver
  name: (name) @reference.member.call) @_e
  (#kind? @_e member_call_expression nullsafe_member_call_expression))
(scoped_call_expression
  scope: (_) @receiver
  name: (name) @reference.member.call)
(class_constant_access_expression
  . (_) @receiver
  (name) @reference.member .)
(scoped_property_access_expression
  scope: (_) @receiver
  name: (variable_name (name) @reference.member))

; Variables (`$x`) are never functions, classes or constants: their
; `name` is no use of those. Parameters and locals are bindings.
(simple_parameter name: (variable_name (name) @local.definition))
(variadic_parameter name: (variable_name (name) @local.definition))
(variable_name (name) @ignore)

(function_definition) @local.scope
(method_declaration) @local.scope
(anonymous_function) @local.scope
(arrow_function) @local.scope

; A named argument's name (`f(label: 'x')`) is no use.
(argument name: (name) @ignore)

; Everything else named is a use: a function call, a class in `new`,
; `extends`, a type, a constant.
(function_call_expression function: (name) @reference.call)
(function_call_expression function: (qualified_name (name) @reference.call .))
(qualified_name (name) @reference .)
(name) @reference

; Bases: `extends A`, `implements I`.
(base_clause [(name) (qualified_name)] @base)
(class_interface_clause [(name) (qualified_name)] @base)
