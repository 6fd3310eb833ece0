; TypeScript (.ts, not .tsx) only: inherited by typescript/tags.scm before
; typescript-shared, so these patterns win over its constants.

; `const f = <T>(x: T) => ...` in a .ts file parses as a type assertion
; wrapping the arrow function: still a function.
(lexical_declaration
  .
  (variable_declarator
    name: (identifier) @name
    value: (type_assertion (arrow_function)))
  .) @definition.function

(lexical_declaration
  .
  (variable_declarator
    name: (identifier) @name
    value: (type_assertion (arrow_function)))
  .
  (comment)
  .) @definition.function

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (type_assertion (arrow_function))) @definition.function)
