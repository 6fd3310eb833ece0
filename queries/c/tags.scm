; C definitions. When two patterns capture the same @name node, the
; earlier pattern wins.
; Where a declaration counts depends on its parent (the file, a namespace,
; a class, a preprocessor conditional; not a function body): one pattern
; says so with `(#has-parent? @capture kind ...)`, which the engine checks,
; rather than a pattern per parent, each of which tree-sitter analyses when
; the query compiles (a command that reads a file pays for it).
; For the same reason a declarator is a wildcard whose kinds `(#kind?
; @capture kind ...)` names: `(_ declarator: (identifier) @name) @_f` with
; `(#kind? @_f function_declarator)` is a function's, behind `*`s that are
; `@_w`; a data name is reached by one alternative per depth, each
; declarator on the way `@_p`. The alternatives of one pattern must not
; match the same node (tree-sitter reports one match per pattern for the
; same nodes, so a rejected one can hide another): one per depth, and the
; parenthesized forms (`int (*fp)(int)`), which have no `declarator`
; field, named. C++'s `tags.scm` says more.

; Function definitions (the name under any pointers of the return type).
((function_definition
  declarator: [
    (_ declarator: (identifier) @name) @_f
    (_ declarator: (_ declarator: (identifier) @name) @_f) @_w
    (_ declarator: (_ declarator: (_ declarator: (identifier) @name) @_f) @_w) @_w
  ]) @definition.function
  (#kind? @_f function_declarator)
  (#kind? @_w pointer_declarator))
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
((field_declaration
  declarator: [
    (field_identifier) @name
    (_ declarator: (field_identifier) @name) @_p
    (_ declarator: (_ declarator: (field_identifier) @name) @_p) @_p
    (_ declarator: (_ declarator: (_ declarator: (field_identifier) @name) @_p) @_p) @_p
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
  ]) @definition.field
  (#kind? @_p pointer_declarator array_declarator))

; Typedefs (`typedef struct s {..} s_t;`, `typedef void (*fn)(int);`).
((type_definition
  declarator: [
    (type_identifier) @name
    (_ declarator: (type_identifier) @name) @_p
    (_ declarator: (_ declarator: (type_identifier) @name) @_p) @_p
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.type
  (#kind? @_p pointer_declarator array_declarator function_declarator))

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
    (_ declarator: (identifier) @name) @_f
    (_ declarator: (_ declarator: (identifier) @name) @_f) @_w
    (_ declarator: (_ declarator: (_ declarator: (identifier) @name) @_f) @_w) @_w
    ]) @definition.function
  (#has-parent? @definition.function translation_unit preproc_if preproc_ifdef preproc_else preproc_elif)
  (#kind? @_f function_declarator)
  (#kind? @_w pointer_declarator))

((declaration
    declarator: [
    (identifier) @name
    (_ declarator: (identifier) @name) @_p
    (_ declarator: (_ declarator: (identifier) @name) @_p) @_p
    (_ declarator: (_ declarator: (_ declarator: (identifier) @name) @_p) @_p) @_p
    (_ declarator: (_ declarator: (_ declarator: (_ declarator: (identifier) @name) @_p) @_p) @_p) @_p
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
    (init_declarator declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name))))
    (array_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
    ]) @definition.variable
  (#has-parent? @definition.variable translation_unit preproc_if preproc_ifdef preproc_else preproc_elif)
  (#kind? @_p init_declarator pointer_declarator array_declarator))
