; Uses of names inside a symbol, for its same-file dependencies. A node
; captured as a local definition, ignored or a member is never a plain
; reference, whatever other pattern also captures it.

; `this.x` is the enclosing class's member, `super.x` its base's; any other
; receiver is of unknown type.
(method_invocation
  object: (this) @receiver.self
  name: (identifier) @reference.member.call)
(method_invocation
  object: (super) @receiver.super
  name: (identifier) @reference.member.call)
(method_invocation
  object: (_) @receiver
  name: (identifier) @reference.member.call)
(field_access
  object: (this) @receiver.self
  field: (identifier) @reference.member.field)
(field_access
  object: (super) @receiver.super
  field: (identifier) @reference.member.field)
(field_access
  object: (_) @receiver
  field: (identifier) @reference.member.field)
(scoped_type_identifier
  (type_identifier) @receiver
  (type_identifier) @reference.member)

; Annotation element names and labels are neither uses nor bindings.
(element_value_pair key: (identifier) @ignore)
(labeled_statement (identifier) @ignore)
(break_statement (identifier) @ignore)
(continue_statement (identifier) @ignore)
(package_declaration (_) @ignore)
(import_declaration (_) @ignore)

; Parameters and local bindings.
(formal_parameter name: (identifier) @local.definition)
(spread_parameter (variable_declarator name: (identifier) @local.definition))
(catch_formal_parameter name: (identifier) @local.definition)
(lambda_expression parameters: (identifier) @local.definition)
(inferred_parameters (identifier) @local.definition)
(local_variable_declaration declarator: (variable_declarator name: (identifier) @local.definition))
(enhanced_for_statement name: (identifier) @local.definition)
(resource name: (identifier) @local.definition)

; Where local bindings are visible.
(method_declaration) @local.scope
(constructor_declaration) @local.scope
(lambda_expression) @local.scope
(block) @local.scope
(for_statement) @local.scope
(enhanced_for_statement) @local.scope
(catch_clause) @local.scope
(try_with_resources_statement) @local.scope

; Bases: a class's superclass and interfaces, an interface's bases.
(superclass (type_identifier) @base)
(superclass (generic_type (type_identifier) @base))
(super_interfaces (type_list (type_identifier) @base))
(super_interfaces (type_list (generic_type (type_identifier) @base)))
(extends_interfaces (type_list (type_identifier) @base))
(extends_interfaces (type_list (generic_type (type_identifier) @base)))

; Everything else named is a use.
(method_invocation !object name: (identifier) @reference.call)
(type_identifier) @reference.type
(identifier) @reference
