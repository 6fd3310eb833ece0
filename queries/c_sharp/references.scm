; Uses of names inside a C# symbol, for its dependencies, references and
; rename. A node captured as a local definition, ignored or a member is
; never a plain reference. A bare name in a member is `this`'s member
; unless a local hides it (`implicit_self` in grammars/c_sharp.toml).

; `this.x`, `base.x`: the enclosing type's member, its base's.
(member_access_expression
  expression: "this" @receiver.self
  name: (identifier) @reference.member)
(member_access_expression
  expression: "base" @receiver.super
  name: (identifier) @reference.member)
; `obj.x`, `Type.x`, `ns.Type`: a member of another receiver.
(member_access_expression
  expression: (_) @receiver
  name: (identifier) @reference.member)
(member_access_expression
  expression: (_) @receiver
  name: (generic_name (identifier) @reference.member))
; `a?.x`: a member of `a`.
(conditional_access_expression
  condition: (_) @receiver
  (member_binding_expression
    name: (identifier) @reference.member))
(qualified_name
  qualifier: (_) @receiver
  name: (identifier) @reference.member)

; Parameters and locals.
(parameter name: (identifier) @local.definition)
(variable_declarator name: (identifier) @local.definition)
(foreach_statement left: (identifier) @local.definition)
(catch_declaration name: (identifier) @local.definition)
(declaration_expression name: (identifier) @local.definition)
(implicit_parameter) @local.definition
(type_parameter name: (identifier) @local.definition)

(method_declaration) @local.scope
(constructor_declaration) @local.scope
(operator_declaration) @local.scope
(accessor_declaration) @local.scope
(local_function_statement) @local.scope
(lambda_expression) @local.scope
(anonymous_method_expression) @local.scope
(block) @local.scope

; Named arguments (`f(count: 1)`) and object initializer members are
; names of another thing's members.
(argument name: (identifier) @ignore)
(initializer_expression
  (assignment_expression
    left: (identifier) @reference.member))
; `nameof(x)` names `x` in a string: a use all the same.

; Everything else named is a use.
(invocation_expression function: (identifier) @reference.call)
(identifier) @reference

; Bases: `class B : A, IFoo`.
(base_list [(identifier) (qualified_name) (generic_name)] @base)
