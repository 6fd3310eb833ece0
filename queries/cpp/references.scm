; Uses of names inside a symbol, for its same-file dependencies. A node
; captured as a local definition, ignored or a member is never a plain
; reference, whatever other pattern also captures it.

; `this->x` is the enclosing class's member; `p->x`, `s.x` a member of an
; expression of unknown type; `ns::f`, `Cls::m` a member of what precedes.
(field_expression
  argument: (this) @receiver.self
  field: (field_identifier) @reference.member)
(field_expression
  argument: (_) @receiver
  field: (field_identifier) @reference.member)
(call_expression
  function: (field_expression
    field: (field_identifier) @reference.member.call))
(qualified_identifier
  scope: (_) @receiver
  name: [(identifier) (type_identifier)] @reference.member)

; Member initializers name fields of the class; designators, labels and
; goto targets are neither uses nor bindings.
(field_initializer (field_identifier) @reference.member.field)
(field_designator (field_identifier) @ignore)
(labeled_statement label: (statement_identifier) @ignore)
(goto_statement label: (statement_identifier) @ignore)

; Parameters, template parameters and local bindings. A declarator is a
; wildcard whose kind `#kind?` names (cheaper to compile than the named
; kind; see `tags.scm`), and no two alternatives of a pattern can match
; the same node.
((parameter_declaration declarator: [
    (identifier) @local.definition
    (_ declarator: (identifier) @local.definition) @_p
    (reference_declarator (identifier) @local.definition)
  ])
  (#kind? @_p pointer_declarator))
(optional_parameter_declaration declarator: [
    (identifier) @local.definition
    (reference_declarator (identifier) @local.definition)
  ])
(type_parameter_declaration (type_identifier) @local.definition)
((compound_statement (declaration declarator: [
    (identifier) @local.definition
    (_ declarator: (identifier) @local.definition) @_i
    (_ declarator: (_ declarator: (identifier) @local.definition) @_p) @_i
    (_ declarator: (reference_declarator (identifier) @local.definition)) @_i
  ]))
  (#kind? @_i init_declarator)
  (#kind? @_p pointer_declarator))
((for_statement initializer: (declaration declarator: (_ declarator: (identifier) @local.definition) @_i))
  (#kind? @_i init_declarator))
(for_range_loop declarator: [
    (identifier) @local.definition
    (reference_declarator (identifier) @local.definition)
  ])
(lambda_capture_specifier (identifier) @local.definition)

; Where local bindings are visible.
(function_definition) @local.scope
(template_declaration) @local.scope
(lambda_expression) @local.scope
(compound_statement) @local.scope
(for_statement) @local.scope
(for_range_loop) @local.scope

; Bases: a class's base classes.
(base_class_clause (type_identifier) @base)
(base_class_clause (template_type name: (type_identifier) @base))
(base_class_clause (qualified_identifier) @base)

; Everything else named is a use.
(call_expression function: (identifier) @reference.call)
(type_identifier) @reference.type
(namespace_identifier) @reference
(identifier) @reference
