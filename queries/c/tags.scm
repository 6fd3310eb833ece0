; C definitions. When two patterns capture the same @name node, the
; earlier pattern wins.
; Where a declaration counts depends on its parent (the file, a namespace,
; a class, a preprocessor conditional; not a function body): one pattern
; says so with `(#has-parent? @capture kind ...)`, which the engine checks,
; rather than a pattern per parent, each of which tree-sitter analyses when
; the query compiles (a command that reads a file pays for it).

; Function definitions (the name under any pointers of the return type).
(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
; A function returning a function pointer: `void (*(f(void)))(int) {..}`.
(function_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator
        declarator: [
          (function_declarator declarator: (identifier) @name)
          (parenthesized_declarator (function_declarator declarator: (identifier) @name))
        ])))) @definition.function

; Structs, unions and enums with a body; their fields and enumerators.
(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct
(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.union
(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list)) @definition.enum
(enumerator
  name: (identifier) @name) @definition.enum_member
(field_declaration
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (array_declarator declarator: (field_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
  ]) @definition.field

; Typedefs (`typedef struct s {..} s_t;`, `typedef void (*fn)(int);`).
(type_definition
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    (function_declarator declarator: (type_identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (type_identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (type_identifier) @name))
    (array_declarator declarator: (type_identifier) @name)
  ]) @definition.type

; Macros, object- and function-like.
(preproc_def
  name: (identifier) @name) @definition.macro
(preproc_function_def
  name: (identifier) @name) @definition.macro

; File-level prototypes and variables, also inside preprocessor
; conditionals (not the locals of a function body): the name under any
; pointers and arrays, and function pointers (`void (*hook)(int);`).
((declaration
    declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]) @definition.function
  (#has-parent? @definition.function translation_unit preproc_if preproc_ifdef preproc_else preproc_elif))

((declaration
    declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
    (init_declarator declarator: (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name)))
    (init_declarator declarator: (array_declarator declarator: (pointer_declarator declarator: (identifier) @name)))
    (array_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (identifier) @name)))
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
    (init_declarator declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name))))
    (array_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
    (array_declarator declarator: (array_declarator declarator: (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (array_declarator declarator: (identifier) @name)))
    (pointer_declarator declarator: (array_declarator declarator: (array_declarator declarator: (identifier) @name)))
    (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (array_declarator declarator: (identifier) @name))))
    ]) @definition.variable
  (#has-parent? @definition.variable translation_unit preproc_if preproc_ifdef preproc_else preproc_elif))


