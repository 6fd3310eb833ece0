; Python definitions. When two patterns capture the same @name node, the
; earlier pattern wins: methods are listed before plain functions.

; Methods: functions directly in a class body, decorated or not.
(class_definition
  body: (block
    (function_definition
      name: (identifier) @name) @definition.method))

(class_definition
  body: (block
    (decorated_definition
      definition: (function_definition
        name: (identifier) @name) @definition.method)))

; Functions (sync and async, at any depth) and classes.
(function_definition
  name: (identifier) @name) @definition.function

(class_definition
  name: (identifier) @name) @definition.class

; Module-level assignments: UPPER_CASE names are constants, others variables.
((module
  (expression_statement
    (assignment
      left: (identifier) @name)) @definition.constant)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

(module
  (expression_statement
    (assignment
      left: (identifier) @name)) @definition.variable)

; Class attributes (dataclass fields, class constants).
(class_definition
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @name)) @definition.field))
