; Uses of names inside a symbol, for its same-file dependencies. A node
; captured as a local definition, ignored or a member is never a plain
; reference, whatever other pattern also captures it.

; `x.f()`, `x.f`, `pkg.Name`: a member of what precedes it (a Go receiver
; is a named parameter, not `self`: its type is not resolved).
(call_expression
  function: (selector_expression
    field: (field_identifier) @reference.member.call))
(selector_expression
  operand: (_) @receiver
  field: (field_identifier) @reference.member)
(qualified_type
  package: (package_identifier) @receiver
  name: (type_identifier) @reference.member)

; Keys of a composite literal name fields of its type (`options{size: n}`).
(composite_literal
  type: (_) @receiver
  body: (literal_value
    (keyed_element
      key: (literal_element (identifier) @reference.member.field))))

; Labels are neither uses nor bindings.
(labeled_statement label: (label_name) @ignore)

; Parameters, receivers, results, type parameters and local bindings.
(parameter_declaration name: (identifier) @local.definition)
(variadic_parameter_declaration name: (identifier) @local.definition)
(type_parameter_declaration name: (identifier) @local.definition)
(short_var_declaration left: (expression_list (identifier) @local.definition))
(range_clause left: (expression_list (identifier) @local.definition))
(type_switch_statement alias: (expression_list (identifier) @local.definition))
(block (statement_list (var_declaration (var_spec name: (identifier) @local.definition))))
(block (statement_list (const_declaration (const_spec name: (identifier) @local.definition))))
(block (statement_list (var_declaration (var_spec_list (var_spec name: (identifier) @local.definition)))))

; The type a local is declared with or built from (the receiver `b *Buffer`,
; a parameter, `var b Buffer` in a block, `b := Buffer{}`, `b := &Buffer{}`,
; and each with another package's `pkg.T`): one named type, so `b.M()` is
; that type's member.
(parameter_declaration name: (identifier) @local.definition
  type: [(type_identifier) (generic_type) (qualified_type)] @local.type)
(parameter_declaration name: (identifier) @local.definition
  type: (pointer_type [(type_identifier) (generic_type) (qualified_type)] @local.type))
(block (statement_list (var_declaration (var_spec name: (identifier) @local.definition
  type: [(type_identifier) (generic_type) (qualified_type)] @local.type))))
(block (statement_list (var_declaration (var_spec name: (identifier) @local.definition
  type: (pointer_type [(type_identifier) (generic_type) (qualified_type)] @local.type)))))
(short_var_declaration
  left: (expression_list . (identifier) @local.definition .)
  right: (expression_list . (composite_literal
    type: [(type_identifier) (generic_type) (qualified_type)] @local.type) .))
(short_var_declaration
  left: (expression_list . (identifier) @local.definition .)
  right: (expression_list . (unary_expression operator: "&"
    operand: (composite_literal
      type: [(type_identifier) (generic_type) (qualified_type)] @local.type)) .))

; Where local bindings are visible.
(function_declaration) @local.scope
(method_declaration) @local.scope
(func_literal) @local.scope
(block) @local.scope

; Everything else named is a use.
(call_expression function: (identifier) @reference.call)
(type_identifier) @reference.type
(identifier) @reference
