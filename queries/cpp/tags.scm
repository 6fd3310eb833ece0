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
; For the same reason a declarator's wrappers are wildcards whose kind a
; predicate names: `(_ (function_declarator ...) @_w)` with
; `(#has-parent? @_w pointer_declarator reference_declarator)` is the
; function behind one `*` or `&` (`int* f()`, `T& f()`), and
; `(_ (_ (function_declarator ...) @_w) @_w)` the one behind two (`int**
; f()`, `int*& f()`): every node captured `@_w` must have a `*` or `&`
; wrapper for parent. `(_ scope: ...)` is a
; qualified_identifier, the grammar's only kind with a `scope` field. A
; class's members are one pattern under their `field_declaration_list`,
; the member a wildcard whose kinds `(#kind? @capture kind ...)` names. A
; wildcard's children are not analysed at compile time: the query
; compiles in a third of the time, and matches what the named kinds
; matched.

; Constructors: a function named like its class, in the class body or
; defined outside it (`Circle::Circle`, a template's `Matrix<T>::Matrix`).
(class_specifier
  name: (type_identifier) @_class
  body: (field_declaration_list
    [
      (function_definition
        declarator: (function_declarator declarator: (identifier) @name))
      (declaration
        declarator: (function_declarator declarator: (identifier) @name))
    ] @definition.constructor)
  (#eq? @_class @name))
(struct_specifier
  name: (type_identifier) @_class
  body: (field_declaration_list
    [
      (function_definition
        declarator: (function_declarator declarator: (identifier) @name))
      (declaration
        declarator: (function_declarator declarator: (identifier) @name))
    ] @definition.constructor)
  (#eq? @_class @name))
(function_definition
  declarator: (function_declarator
    declarator: (_
      scope: (namespace_identifier) @qualifier
      name: (identifier) @name))
  (#eq? @qualifier @name)) @definition.constructor
(function_definition
  declarator: (function_declarator
    declarator: (_
      scope: (template_type name: (type_identifier) @_class) @qualifier
      name: (identifier) @name))
  (#eq? @_class @name)) @definition.constructor

; Conversion operators (`operator bool() const`), named `operator TYPE`:
; in the class, in a template of it, and defined outside it.
([
    (function_definition declarator: (operator_cast "operator" @name type: (_) @name))
    (declaration declarator: (operator_cast "operator" @name type: (_) @name))
    (template_declaration
      [
        (function_definition declarator: (operator_cast "operator" @name type: (_) @name))
        (declaration declarator: (operator_cast "operator" @name type: (_) @name))
      ])
  ] @definition.operator
  (#has-parent? @definition.operator field_declaration_list))
(function_definition declarator: [
    (_ scope: (_) @qualifier name: (operator_cast "operator" @name type: (_) @name))
    (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (operator_cast "operator" @name type: (_) @name)))
  ]) @definition.operator

((field_declaration_list
  (_ declarator: [
    (function_declarator declarator: (operator_name) @name)
    (_ (function_declarator declarator: (operator_name) @name) @_w)
    (_ (_ (function_declarator declarator: (operator_name) @name) @_w) @_w)
  ]) @definition.operator)
  (#kind? @definition.operator function_definition field_declaration)
  (#has-parent? @_w pointer_declarator reference_declarator))
((field_declaration_list
  (template_declaration (_ declarator: [
    (function_declarator declarator: (operator_name) @name)
    (_ (function_declarator declarator: (operator_name) @name) @_w)
    (_ (_ (function_declarator declarator: (operator_name) @name) @_w) @_w)
  ]) @definition.operator))
  (#kind? @definition.operator function_definition declaration)
  (#has-parent? @_w pointer_declarator reference_declarator))
((declaration declarator: [
    (function_declarator declarator: (operator_name) @name)
    (_ (function_declarator declarator: (operator_name) @name) @_w)
    (_ (_ (function_declarator declarator: (operator_name) @name) @_w) @_w)
  ]) @definition.operator
  (#has-parent? @definition.operator field_declaration_list translation_unit declaration_list preproc_if preproc_ifdef preproc_else linkage_specification)
  (#has-parent? @_w pointer_declarator reference_declarator))
((field_declaration_list
  (_ declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name)
    (_ (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name) @_w)
    (_ (_ (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name) @_w) @_w)
  ]) @definition.method)
  (#kind? @definition.method function_definition field_declaration declaration)
  (#has-parent? @_w pointer_declarator reference_declarator))
((field_declaration_list
  (template_declaration (_ declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name)
    (_ (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name) @_w)
    (_ (_ (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name) @_w) @_w)
  ]) @definition.method))
  (#kind? @definition.method function_definition declaration)
  (#has-parent? @_w pointer_declarator reference_declarator))
((function_definition declarator: [
    (function_declarator declarator: [
        (_ scope: (_) @qualifier name: (operator_name) @name)
        (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (operator_name) @name))
        (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (operator_name) @name)))
      ])
    (_ (function_declarator declarator: [
          (_ scope: (_) @qualifier name: (operator_name) @name)
          (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (operator_name) @name))
          (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (operator_name) @name)))
        ]) @_w)
    (_ (_ (function_declarator declarator: [
            (_ scope: (_) @qualifier name: (operator_name) @name)
            (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (operator_name) @name))
            (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (operator_name) @name)))
          ]) @_w) @_w)
  ]) @definition.operator
  (#has-parent? @_w pointer_declarator reference_declarator))
((function_definition declarator: [
    (function_declarator declarator: [
        (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)
        (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name))
        (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)))
      ])
    (_ (function_declarator declarator: [
          (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)
          (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name))
          (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)))
        ]) @_w)
    (_ (_ (function_declarator declarator: [
            (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)
            (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name))
            (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: (_ scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)))
          ]) @_w) @_w)
  ]) @definition.method
  (#has-parent? @_w pointer_declarator reference_declarator))
((function_definition declarator: [
    (function_declarator declarator: (operator_name) @name)
    (_ (function_declarator declarator: (operator_name) @name) @_w)
    (_ (_ (function_declarator declarator: (operator_name) @name) @_w) @_w)
  ]) @definition.operator
  (#has-parent? @_w pointer_declarator reference_declarator))
((function_definition declarator: [
    (function_declarator declarator: (identifier) @name)
    (_ (function_declarator declarator: (identifier) @name) @_w)
    (_ (_ (function_declarator declarator: (identifier) @name) @_w) @_w)
  ]) @definition.function
  (#has-parent? @_w pointer_declarator reference_declarator))

((declaration declarator: [
    (function_declarator declarator: (identifier) @name)
    (_ (function_declarator declarator: (identifier) @name) @_w)
    (_ (_ (function_declarator declarator: (identifier) @name) @_w) @_w)
  ]) @definition.function
  (#has-parent? @definition.function translation_unit declaration_list preproc_if preproc_ifdef preproc_else linkage_specification)
  (#has-parent? @_w pointer_declarator reference_declarator))
((template_declaration (declaration declarator: [
      (function_declarator declarator: (identifier) @name)
      (_ (function_declarator declarator: (identifier) @name) @_w)
      (_ (_ (function_declarator declarator: (identifier) @name) @_w) @_w)
    ]) @definition.function) @_parent
  (#has-parent? @_parent translation_unit declaration_list preproc_if preproc_ifdef preproc_else)
  (#has-parent? @_w pointer_declarator reference_declarator))

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
      (pointer_declarator declarator: (field_identifier) @name)
      (reference_declarator (field_identifier) @name)
      (array_declarator declarator: (field_identifier) @name)
      (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))
      (array_declarator declarator: (array_declarator declarator: (field_identifier) @name))
      (pointer_declarator declarator: (array_declarator declarator: (array_declarator declarator: (field_identifier) @name)))
    ]) @definition.field
  (#has-parent? @definition.field field_declaration_list))

; `using T = ...;`, `typedef ... T;` of a file, namespace or class (not
; the local aliases of a function body).
((alias_declaration
    name: (type_identifier) @name) @definition.type
  (#has-parent? @definition.type translation_unit declaration_list field_declaration_list template_declaration preproc_if preproc_ifdef preproc_else preproc_elif))

((type_definition
    declarator: [
      (type_identifier) @name
      (pointer_declarator declarator: (type_identifier) @name)
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
      (function_declarator declarator: (type_identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (type_identifier) @name))
      (array_declarator declarator: (type_identifier) @name)
      (array_declarator declarator: (parenthesized_declarator (reference_declarator (type_identifier) @name)))
      (array_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    ]) @definition.type
  (#has-parent? @definition.type translation_unit declaration_list field_declaration_list preproc_if preproc_ifdef preproc_else preproc_elif))

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
    (init_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (identifier) @name)
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
    (array_declarator declarator: (identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (array_declarator declarator: (identifier) @name)))
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name)))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (identifier) @name)))
    (init_declarator declarator: (reference_declarator (identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
    (init_declarator declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name))))
    (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (array_declarator declarator: (identifier) @name))))
  ]) @definition.variable
  (#has-parent? @definition.variable translation_unit declaration_list preproc_if preproc_ifdef preproc_else linkage_specification))


