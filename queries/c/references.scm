; Uses of names inside a symbol, for its same-file dependencies. A node
; captured as a local definition, ignored or a member is never a plain
; reference, whatever other pattern also captures it.

; `p->f`, `s.f`: a field of an expression of unknown type.
(field_expression
  argument: (_) @receiver
  field: (field_identifier) @reference.member.field)

; Designated initializers name fields (`{ .size = 1 }`); labels and goto
; targets are neither uses nor bindings.
(field_designator (field_identifier) @ignore)
(labeled_statement label: (statement_identifier) @ignore)
(goto_statement label: (statement_identifier) @ignore)

; Parameters and local bindings.
(parameter_declaration declarator: (identifier) @local.definition)
(parameter_declaration declarator: (pointer_declarator declarator: (identifier) @local.definition))
(parameter_declaration declarator: (array_declarator declarator: (identifier) @local.definition))
(compound_statement (declaration declarator: (identifier) @local.definition))
(compound_statement (declaration declarator: (init_declarator declarator: (identifier) @local.definition)))
(compound_statement (declaration declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition))))
(compound_statement (declaration declarator: (pointer_declarator declarator: (identifier) @local.definition)))
(compound_statement (declaration declarator: (array_declarator declarator: (identifier) @local.definition)))
(for_statement initializer: (declaration declarator: (init_declarator declarator: (identifier) @local.definition)))

; Where local bindings are visible.
(function_definition) @local.scope
(compound_statement) @local.scope
(for_statement) @local.scope

; Everything else named is a use.
(call_expression function: (identifier) @reference.call)
(type_identifier) @reference.type
(identifier) @reference
