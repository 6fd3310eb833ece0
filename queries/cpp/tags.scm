; C++ definitions. When two patterns capture the same @name node, the
; earlier pattern wins: operators before methods, methods (in a class
; body, or defined outside it as `Cls::method`) before free functions.
; A definition outside its class names the class (and namespaces) before
; its name: those are @qualifier captures, so `geo::Circle::area` names
; both the declaration in the class and the definition outside it,
; addressed apart by `#N`. `template <...>` is a wrapper (see the TOML).
; Where a declaration counts depends on its parent (the file, a namespace,
; a class, a preprocessor conditional; not a function body): one pattern
; says so with `(#has-parent? @capture kind ...)`, which the engine checks,
; rather than a pattern per parent, each of which tree-sitter analyses when
; the query compiles (a command that reads a file pays for it).
; For the same reason a declarator is a wildcard whose kind a predicate
; names, wherever a named kind would be analysed: `(_ declarator: (identifier)
; @name) @_f` with `(#kind? @_f function_declarator)` is a function's
; declarator (tree-sitter does not analyse a wildcard's children when the
; query compiles; the named `function_declarator` cost each function pattern
; three times as much). Its `*` and `&` wrappers are wildcards too: `(_ (_
; declarator: ...) @_f @_w)` with `(#has-parent? @_w pointer_declarator
; reference_declarator)` is the function behind one (`int* f()`, `T& f()`),
; `(_ (_ (_ ...) @_f @_w) @_w)` the one behind two (`int** f()`, `int*& f()`):
; every node captured `@_w` must have a `*` or `&` wrapper for parent. Data
; names are reached the same way, one alternative per depth: `(_ declarator:
; (_ declarator: (identifier) @name) @_p) @_p` with `(#kind? @_p
; pointer_declarator array_declarator ...)` is `int** p`, `int* a[4]`, `int
; a[2][3]` alike. `(_ scope: ...)` is a qualified_identifier, the grammar's
; only kind with a `scope` field. A class's members are one pattern under
; their `field_declaration_list`, the member a wildcard whose kinds `#kind?`
; names.
; The trap: tree-sitter reports one match per pattern for the same nodes, so
; a wildcard alternative that can match the same node as another alternative
; of its pattern may hide it (a `typedef int* p;` matched `(_ declarator:
; (type_identifier))` as a function declarator and was rejected, not found).
; Alternatives of one pattern must not overlap: one per depth, and the
; parenthesized forms (`int (*fp)(int)`), which have no `declarator` field,
; named. A pattern's root stays a named kind: outlines run the query from
; each top-level node's kind. Each rewrite was checked against the query
; before it on 812 real C and C++ files (ARCHITECTURE.md).

; Constructors: a function named like its class, in the class body or
; defined outside it (`Circle::Circle`, a template's `Matrix<T>::Matrix`).
(class_specifier
  name: (type_identifier) @_class
  body: (field_declaration_list
    (_ declarator: (_ declarator: (identifier) @name) @_f) @definition.constructor)
  (#eq? @_class @name)
  (#kind? @definition.constructor function_definition declaration)
  (#kind? @_f function_declarator))
(struct_specifier
  name: (type_identifier) @_class
  body: (field_declaration_list
    (_ declarator: (_ declarator: (identifier) @name) @_f) @definition.constructor)
  (#eq? @_class @name)
  (#kind? @definition.constructor function_definition declaration)
  (#kind? @_f function_declarator))
(function_definition
  declarator: (_
    declarator: (_
      scope: [(namespace_identifier) @_class (template_type name: (type_identifier) @_class)] @qualifier
      name: (identifier) @name)) @_f
  (#eq? @_class @name)
  (#kind? @_f function_declarator)) @definition.constructor

; Conversion operators (`operator bool() const`), named `operator TYPE`:
; in the class, in a template of it, and defined outside it.
((field_declaration_list
  (_ declarator: (_ "operator" @name type: (_) @name) @_o) @definition.operator)
  (#kind? @_o operator_cast)
  (#kind? @definition.operator function_definition declaration))
((field_declaration_list
  (template_declaration (_ declarator: (_ "operator" @name type: (_) @name) @_o) @_m) @definition.operator)
  (#kind? @_o operator_cast)
  (#kind? @_m function_definition declaration))
(function_definition declarator: [
    (_ scope: (_) @qualifier name: (operator_cast "operator" @name type: (_) @name))
    (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (operator_cast "operator" @name type: (_) @name)))
  ]) @definition.operator

((field_declaration_list
  (_ declarator: [
    (_ declarator: (operator_name) @name) @_f
    (_ (_ declarator: (operator_name) @name) @_f @_w)
    (_ (_ (_ declarator: (operator_name) @name) @_f @_w) @_w)
  ]) @definition.operator)
  (#kind? @definition.operator function_definition field_declaration)
  (#has-parent? @_w pointer_declarator reference_declarator)
  (#kind? @_f function_declarator))
((field_declaration_list
  (template_declaration (_ declarator: [
    (_ declarator: (operator_name) @name) @_f
    (_ (_ declarator: (operator_name) @name) @_f @_w)
    (_ (_ (_ declarator: (operator_name) @name) @_f @_w) @_w)
  ]) @definition.operator))
  (#kind? @definition.operator function_definition declaration)
  (#has-parent? @_w pointer_declarator reference_declarator)
  (#kind? @_f function_declarator))
((declaration declarator: [
    (_ declarator: (operator_name) @name) @_f
    (_ (_ declarator: (operator_name) @name) @_f @_w)
    (_ (_ (_ declarator: (operator_name) @name) @_f @_w) @_w)
  ]) @definition.operator
  (#has-parent? @definition.operator field_declaration_list translation_unit declaration_list preproc_if preproc_ifdef preproc_else linkage_specification)
  (#has-parent? @_w pointer_declarator reference_declarator)
  (#kind? @_f function_declarator))
((field_declaration_list
  (_ declarator: [
    (_ declarator: [(identifier) (field_identifier) (destructor_name)] @name) @_f
    (_ (_ declarator: [(identifier) (field_identifier) (destructor_name)] @name) @_f @_w)
    (_ (_ (_ declarator: [(identifier) (field_identifier) (destructor_name)] @name) @_f @_w) @_w)
  ]) @definition.method)
  (#kind? @definition.method function_definition field_declaration declaration)
  (#has-parent? @_w pointer_declarator reference_declarator)
  (#kind? @_f function_declarator))
((field_declaration_list
  (template_declaration (_ declarator: [
    (_ declarator: [(identifier) (field_identifier) (destructor_name)] @name) @_f
    (_ (_ declarator: [(identifier) (field_identifier) (destructor_name)] @name) @_f @_w)
    (_ (_ (_ declarator: [(identifier) (field_identifier) (destructor_name)] @name) @_f @_w) @_w)
  ]) @definition.method))
  (#kind? @definition.method function_definition declaration)
  (#has-parent? @_w pointer_declarator reference_declarator)
  (#kind? @_f function_declarator))
((function_definition declarator: [
    (_ declarator: [
        (_ scope: (_) @qualifier name: (operator_name) @name)
        (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (operator_name) @name))
        (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (operator_name) @name)))
      ]) @_f
    (_ (_ declarator: [
          (_ scope: (_) @qualifier name: (operator_name) @name)
          (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (operator_name) @name))
          (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (operator_name) @name)))
        ]) @_f @_w)
    (_ (_ (_ declarator: [
            (_ scope: (_) @qualifier name: (operator_name) @name)
            (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (operator_name) @name))
            (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (operator_name) @name)))
          ]) @_f @_w) @_w)
  ]) @definition.operator
  (#has-parent? @_w pointer_declarator reference_declarator)
  (#kind? @_f function_declarator))
((function_definition declarator: [
    (_ declarator: [
        (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)
        (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name))
        (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)))
      ]) @_f
    (_ (_ declarator: [
          (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)
          (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name))
          (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)))
        ]) @_f @_w)
    (_ (_ (_ declarator: [
            (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)
            (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name))
            (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)))
          ]) @_f @_w) @_w)
  ]) @definition.method
  (#has-parent? @_w pointer_declarator reference_declarator)
  (#kind? @_f function_declarator))
((function_definition declarator: [
    (_ declarator: (operator_name) @name) @_f
    (_ (_ declarator: (operator_name) @name) @_f @_w)
    (_ (_ (_ declarator: (operator_name) @name) @_f @_w) @_w)
  ]) @definition.operator
  (#has-parent? @_w pointer_declarator reference_declarator)
  (#kind? @_f function_declarator))
((function_definition declarator: [
    (_ declarator: (identifier) @name) @_f
    (_ (_ declarator: (identifier) @name) @_f @_w)
    (_ (_ (_ declarator: (identifier) @name) @_f @_w) @_w)
  ]) @definition.function
  (#has-parent? @_w pointer_declarator reference_declarator)
  (#kind? @_f function_declarator))

((declaration declarator: [
    (_ declarator: (identifier) @name) @_f
    (_ (_ declarator: (identifier) @name) @_f @_w)
    (_ (_ (_ declarator: (identifier) @name) @_f @_w) @_w)
  ]) @definition.function
  (#has-parent? @definition.function translation_unit declaration_list preproc_if preproc_ifdef preproc_else linkage_specification)
  (#has-parent? @_w pointer_declarator reference_declarator)
  (#kind? @_f function_declarator))
((template_declaration (declaration declarator: [
      (_ declarator: (identifier) @name) @_f
      (_ (_ declarator: (identifier) @name) @_f @_w)
      (_ (_ (_ declarator: (identifier) @name) @_f @_w) @_w)
    ]) @definition.function) @_parent
  (#has-parent? @_parent translation_unit declaration_list preproc_if preproc_ifdef preproc_else)
  (#has-parent? @_w pointer_declarator reference_declarator)
  (#kind? @_f function_declarator))

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.namespace

; Classes, structs, unions and enums with a body (specializations too).
(class_specifier
  name: (_) @name
  body: (field_declaration_list)) @definition.class
(struct_specifier
  name: (_) @name
  body: (field_declaration_list)) @definition.struct
(union_specifier
  name: (_) @name
  body: (field_declaration_list)) @definition.union
(enum_specifier
  name: (_) @name
  body: (enumerator_list)) @definition.enum
(enumerator
  name: (identifier) @name) @definition.enum_member

; Data members.
((field_declaration
    declarator: [
      (field_identifier) @name
      (_ declarator: (field_identifier) @name) @_p
      (_ declarator: (_ declarator: (field_identifier) @name) @_p) @_p
      (_ declarator: (_ declarator: (_ declarator: (field_identifier) @name) @_p) @_p) @_p
      (reference_declarator (field_identifier) @name)
    ]) @definition.field
  (#has-parent? @definition.field field_declaration_list)
  (#kind? @_p pointer_declarator array_declarator))

; `using T = ...;`, `typedef ... T;` of a file, namespace or class (not
; the local aliases of a function body).
((alias_declaration
    name: (type_identifier) @name) @definition.type
  (#has-parent? @definition.type translation_unit declaration_list field_declaration_list template_declaration preproc_if preproc_ifdef preproc_else preproc_elif))

((type_definition
    declarator: [
      (type_identifier) @name
      (_ declarator: (type_identifier) @name) @_p
      (_ declarator: (_ declarator: (type_identifier) @name) @_p) @_p
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
      (array_declarator declarator: (parenthesized_declarator [(reference_declarator (type_identifier) @name) (pointer_declarator declarator: (type_identifier) @name)]))
    ]) @definition.type
  (#has-parent? @definition.type translation_unit declaration_list field_declaration_list preproc_if preproc_ifdef preproc_else preproc_elif)
  (#kind? @_p pointer_declarator array_declarator function_declarator))

; Macros.
(preproc_def
  name: (identifier) @name) @definition.macro
(preproc_function_def
  name: (identifier) @name) @definition.macro

; Static data members defined outside their class (`int Cls::count = 0;`),
; named through it like an out-of-class method.
((declaration declarator: [
      (_ scope: (_) @qualifier name: (identifier) @name)
      (init_declarator declarator: (_ scope: (_) @qualifier name: (identifier) @name))
      (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (identifier) @name))
      (init_declarator declarator: (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (identifier) @name)))
      (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (identifier) @name)))
      (init_declarator declarator: (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (identifier) @name))))
      (pointer_declarator declarator: (_ scope: (_) @qualifier name: (identifier) @name))
      (init_declarator declarator: (pointer_declarator declarator: (_ scope: (_) @qualifier name: (identifier) @name)))
      (array_declarator declarator: (_ scope: (_) @qualifier name: (identifier) @name))
      (init_declarator declarator: (array_declarator declarator: (_ scope: (_) @qualifier name: (identifier) @name)))
      (init_declarator declarator: (array_declarator declarator: (array_declarator declarator: (_ scope: (_) @qualifier name: (identifier) @name))))
      (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (_ scope: (_) @qualifier name: (identifier) @name))))
      (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (array_declarator declarator: (_ scope: (_) @qualifier name: (identifier) @name)))))
    ]) @definition.field (#has-parent? @definition.field translation_unit declaration_list template_declaration))

; Variables of a file or namespace (not the locals of a function).
((declaration
    declarator: [
      (identifier) @name
      (_ declarator: (identifier) @name) @_p
      (_ declarator: (_ declarator: (identifier) @name) @_p) @_p
      (_ declarator: (_ declarator: (_ declarator: (identifier) @name) @_p) @_p) @_p
      (_ declarator: (_ declarator: (_ declarator: (_ declarator: (identifier) @name) @_p) @_p) @_p) @_p
      (init_declarator declarator: (reference_declarator (identifier) @name))
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
      (init_declarator declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name))))
    ]) @definition.variable
  (#has-parent? @definition.variable translation_unit declaration_list preproc_if preproc_ifdef preproc_else linkage_specification)
  (#kind? @_p init_declarator pointer_declarator array_declarator))


