; inherits: ecma

; Class fields holding functions are methods; other fields are fields.
(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression)]) @definition.method

(field_definition
  property: (_) @name) @definition.field
