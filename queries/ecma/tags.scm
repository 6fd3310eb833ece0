; ECMAScript definitions shared by JavaScript, TypeScript and TSX (they
; `; inherits: ecma`). Not a language of its own: it has no grammars/ file.
; When two patterns capture the same @name node, the earlier pattern wins.

((method_definition
  name: (_) @name) @definition.constructor
  (#eq? @name "constructor"))

(method_definition
  name: (_) @name) @definition.method

(class_declaration
  name: (_) @name) @definition.class

(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

; `const f = () => ...`, `let f = function () ...`: the whole declaration is
; the definition when it declares exactly one name. A trailing comment on
; its line is a named child of the declaration, so the anchors need a
; pattern of their own for it (`const f = () => 1 // why`); without it the
; declarator alone was the symbol, and `export const` was lost.
(lexical_declaration
  .
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])
  .) @definition.function

(lexical_declaration
  .
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])
  .
  (comment)
  .) @definition.function

(variable_declaration
  .
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])
  .) @definition.function

(variable_declaration
  .
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])
  .
  (comment)
  .) @definition.function

; Several functions in one declaration: each declarator is a definition.
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)

; Module-level constants are in each language's own tags.scm, after its
; own function patterns (the earlier pattern wins).
