; inherits: ecma

; Class fields holding functions are methods; other fields are fields.
(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression)]) @definition.method

(field_definition
  property: (_) @name) @definition.field

; Module-level `const` values (exported or not) are constants.
(program
  (lexical_declaration
    kind: "const"
    .
    (variable_declarator
      name: (identifier) @name)
    .) @definition.constant)

(program
  (lexical_declaration
    kind: "const"
    .
    (variable_declarator
      name: (identifier) @name)
    .
    (comment)
    .) @definition.constant)

(program
  (export_statement
    declaration: (lexical_declaration
      kind: "const"
      .
      (variable_declarator
        name: (identifier) @name)
      .) @definition.constant))

(program
  (export_statement
    declaration: (lexical_declaration
      kind: "const"
      .
      (variable_declarator
        name: (identifier) @name)
      .
      (comment)
      .) @definition.constant))

(program
  (lexical_declaration
    kind: "const"
    (variable_declarator
      name: (identifier) @name) @definition.constant))

(program
  (export_statement
    declaration: (lexical_declaration
      kind: "const"
      (variable_declarator
        name: (identifier) @name) @definition.constant)))
