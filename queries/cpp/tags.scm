; C++ definitions. When two patterns capture the same @name node, the
; earlier pattern wins: operators before methods, methods (in a class
; body, or defined outside it as `Cls::method`) before free functions.
; A definition outside its class names the class (and namespaces) before
; its name: those are @qualifier captures, so `geo::Circle::area` names
; both the declaration in the class and the definition outside it,
; addressed apart by `#N`. `template <...>` is a wrapper (see the TOML).

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
    declarator: (qualified_identifier
      scope: (namespace_identifier) @qualifier
      name: (identifier) @name))
  (#eq? @qualifier @name)) @definition.constructor
(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      scope: (template_type name: (type_identifier) @_class) @qualifier
      name: (identifier) @name))
  (#eq? @_class @name)) @definition.constructor

; Conversion operators (`operator bool() const`), named `operator TYPE`:
; in the class, in a template of it, and defined outside it.
(field_declaration_list
  [
    (function_definition declarator: (operator_cast "operator" @name type: (_) @name))
    (declaration declarator: (operator_cast "operator" @name type: (_) @name))
    (template_declaration
      [
        (function_definition declarator: (operator_cast "operator" @name type: (_) @name))
        (declaration declarator: (operator_cast "operator" @name type: (_) @name))
      ])
  ] @definition.operator)
(function_definition
  declarator: [
    (qualified_identifier scope: (_) @qualifier name: (operator_cast "operator" @name type: (_) @name))
    (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (operator_cast "operator" @name type: (_) @name)))
  ]) @definition.operator

(field_declaration_list
  (function_definition
    declarator: [
    (function_declarator declarator: (operator_name) @name)
    (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name))
    (reference_declarator (function_declarator declarator: (operator_name) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
  ]) @definition.operator)
(field_declaration_list
  (template_declaration
    (function_definition
      declarator: [
    (function_declarator declarator: (operator_name) @name)
    (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name))
    (reference_declarator (function_declarator declarator: (operator_name) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
  ]) @definition.operator))
(field_declaration_list
  (field_declaration
    declarator: [
    (function_declarator declarator: (operator_name) @name)
    (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name))
    (reference_declarator (function_declarator declarator: (operator_name) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
  ]) @definition.operator)
(field_declaration_list
  (declaration
    declarator: [
    (function_declarator declarator: (operator_name) @name)
    (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name))
    (reference_declarator (function_declarator declarator: (operator_name) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
  ]) @definition.operator)
(field_declaration_list
  (template_declaration
    (declaration
      declarator: [
    (function_declarator declarator: (operator_name) @name)
    (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name))
    (reference_declarator (function_declarator declarator: (operator_name) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
  ]) @definition.operator))
(field_declaration_list
  (function_definition
    declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name)))
  ]) @definition.method)
(field_declaration_list
  (template_declaration
    (function_definition
      declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name)))
  ]) @definition.method))
(field_declaration_list
  (field_declaration
    declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name)))
  ]) @definition.method)
(field_declaration_list
  (declaration
    declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name)))
  ]) @definition.method)
(field_declaration_list
  (template_declaration
    (declaration
      declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name)] @name)))
  ]) @definition.method))
(function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (operator_name) @name))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (operator_name) @name)))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (operator_name) @name)))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (operator_name) @name))))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (operator_name) @name))))
    (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (operator_name) @name)))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (operator_name) @name))))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (operator_name) @name))))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (operator_name) @name)))))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (operator_name) @name)))))
    (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (operator_name) @name))))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (operator_name) @name)))))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (operator_name) @name)))))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (operator_name) @name))))))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (operator_name) @name))))))
  ]) @definition.operator
(function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: [(identifier) (destructor_name)] @name))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: [(identifier) (destructor_name)] @name))))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: [(identifier) (destructor_name)] @name))))
    (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: [(identifier) (destructor_name)] @name))))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: [(identifier) (destructor_name)] @name))))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)))))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)))))
    (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: [(identifier) (destructor_name)] @name))))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)))))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: [(identifier) (destructor_name)] @name)))))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: [(identifier) (destructor_name)] @name))))))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: [(identifier) (destructor_name)] @name))))))
  ]) @definition.method
(function_definition
  declarator: [
    (function_declarator declarator: (operator_name) @name)
    (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name))
    (reference_declarator (function_declarator declarator: (operator_name) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
  ]) @definition.operator
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function
(translation_unit
  (declaration
    declarator: [
    (function_declarator declarator: (operator_name) @name)
    (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name))
    (reference_declarator (function_declarator declarator: (operator_name) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
  ]) @definition.operator)
(translation_unit
  (declaration
    declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function)
(translation_unit
  (template_declaration
    (declaration
      declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function))
(declaration_list
  (declaration
    declarator: [
    (function_declarator declarator: (operator_name) @name)
    (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name))
    (reference_declarator (function_declarator declarator: (operator_name) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
  ]) @definition.operator)
(declaration_list
  (declaration
    declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function)
(declaration_list
  (template_declaration
    (declaration
      declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function))
(preproc_if
  (declaration
    declarator: [
    (function_declarator declarator: (operator_name) @name)
    (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name))
    (reference_declarator (function_declarator declarator: (operator_name) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
  ]) @definition.operator)
(preproc_if
  (declaration
    declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function)
(preproc_if
  (template_declaration
    (declaration
      declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function))
(preproc_ifdef
  (declaration
    declarator: [
    (function_declarator declarator: (operator_name) @name)
    (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name))
    (reference_declarator (function_declarator declarator: (operator_name) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
  ]) @definition.operator)
(preproc_ifdef
  (declaration
    declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function)
(preproc_ifdef
  (template_declaration
    (declaration
      declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function))
(preproc_else
  (declaration
    declarator: [
    (function_declarator declarator: (operator_name) @name)
    (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name))
    (reference_declarator (function_declarator declarator: (operator_name) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
  ]) @definition.operator)
(preproc_else
  (declaration
    declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function)
(preproc_else
  (template_declaration
    (declaration
      declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function))
(linkage_specification
  (declaration
    declarator: [
    (function_declarator declarator: (operator_name) @name)
    (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name))
    (reference_declarator (function_declarator declarator: (operator_name) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name)))
  ]) @definition.operator)
(linkage_specification
  (declaration
    declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (reference_declarator (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function)
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
(field_declaration_list
  (field_declaration
    declarator: [
      (field_identifier) @name
      (pointer_declarator declarator: (field_identifier) @name)
      (reference_declarator (field_identifier) @name)
      (array_declarator declarator: (field_identifier) @name)
      (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))
      (array_declarator declarator: (array_declarator declarator: (field_identifier) @name))
      (pointer_declarator declarator: (array_declarator declarator: (array_declarator declarator: (field_identifier) @name)))
    ]) @definition.field)

; `using T = ...;`, `typedef ... T;` of a file, namespace or class (not
; the local aliases of a function body).
(translation_unit
  (alias_declaration
    name: (type_identifier) @name) @definition.type)
(declaration_list
  (alias_declaration
    name: (type_identifier) @name) @definition.type)
(field_declaration_list
  (alias_declaration
    name: (type_identifier) @name) @definition.type)
(template_declaration
  (alias_declaration
    name: (type_identifier) @name) @definition.type)
(preproc_if
  (alias_declaration
    name: (type_identifier) @name) @definition.type)
(preproc_ifdef
  (alias_declaration
    name: (type_identifier) @name) @definition.type)
(preproc_else
  (alias_declaration
    name: (type_identifier) @name) @definition.type)
(preproc_elif
  (alias_declaration
    name: (type_identifier) @name) @definition.type)
(translation_unit
  (type_definition
    declarator: [
      (type_identifier) @name
      (pointer_declarator declarator: (type_identifier) @name)
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
      (function_declarator declarator: (type_identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (type_identifier) @name))
      (array_declarator declarator: (type_identifier) @name)
      (array_declarator declarator: (parenthesized_declarator (reference_declarator (type_identifier) @name)))
      (array_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    ]) @definition.type)
(declaration_list
  (type_definition
    declarator: [
      (type_identifier) @name
      (pointer_declarator declarator: (type_identifier) @name)
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
      (function_declarator declarator: (type_identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (type_identifier) @name))
      (array_declarator declarator: (type_identifier) @name)
      (array_declarator declarator: (parenthesized_declarator (reference_declarator (type_identifier) @name)))
      (array_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    ]) @definition.type)
(field_declaration_list
  (type_definition
    declarator: [
      (type_identifier) @name
      (pointer_declarator declarator: (type_identifier) @name)
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
      (function_declarator declarator: (type_identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (type_identifier) @name))
      (array_declarator declarator: (type_identifier) @name)
      (array_declarator declarator: (parenthesized_declarator (reference_declarator (type_identifier) @name)))
      (array_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    ]) @definition.type)
(preproc_if
  (type_definition
    declarator: [
      (type_identifier) @name
      (pointer_declarator declarator: (type_identifier) @name)
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
      (function_declarator declarator: (type_identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (type_identifier) @name))
      (array_declarator declarator: (type_identifier) @name)
      (array_declarator declarator: (parenthesized_declarator (reference_declarator (type_identifier) @name)))
      (array_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    ]) @definition.type)
(preproc_ifdef
  (type_definition
    declarator: [
      (type_identifier) @name
      (pointer_declarator declarator: (type_identifier) @name)
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
      (function_declarator declarator: (type_identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (type_identifier) @name))
      (array_declarator declarator: (type_identifier) @name)
      (array_declarator declarator: (parenthesized_declarator (reference_declarator (type_identifier) @name)))
      (array_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    ]) @definition.type)
(preproc_else
  (type_definition
    declarator: [
      (type_identifier) @name
      (pointer_declarator declarator: (type_identifier) @name)
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
      (function_declarator declarator: (type_identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (type_identifier) @name))
      (array_declarator declarator: (type_identifier) @name)
      (array_declarator declarator: (parenthesized_declarator (reference_declarator (type_identifier) @name)))
      (array_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    ]) @definition.type)
(preproc_elif
  (type_definition
    declarator: [
      (type_identifier) @name
      (pointer_declarator declarator: (type_identifier) @name)
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
      (function_declarator declarator: (type_identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (type_identifier) @name))
      (array_declarator declarator: (type_identifier) @name)
      (array_declarator declarator: (parenthesized_declarator (reference_declarator (type_identifier) @name)))
      (array_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    ]) @definition.type)

; Macros.
(preproc_def
  name: (identifier) @name) @definition.macro
(preproc_function_def
  name: (identifier) @name) @definition.macro

; Static data members defined outside their class (`int Cls::count = 0;`),
; named through it like an out-of-class method.
(translation_unit
  (declaration
    declarator: [
      (qualified_identifier scope: (_) @qualifier name: (identifier) @name)
      (init_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))
      (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))
      (init_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))
      (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))
      (init_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))))
      (pointer_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))
      (init_declarator declarator: (pointer_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))
      (array_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))
      (init_declarator declarator: (array_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))
      (init_declarator declarator: (array_declarator declarator: (array_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))))
      (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))))
      (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (array_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))))
    ]) @definition.field)
(declaration_list
  (declaration
    declarator: [
      (qualified_identifier scope: (_) @qualifier name: (identifier) @name)
      (init_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))
      (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))
      (init_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))
      (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))
      (init_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))))
      (pointer_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))
      (init_declarator declarator: (pointer_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))
      (array_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))
      (init_declarator declarator: (array_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))
      (init_declarator declarator: (array_declarator declarator: (array_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))))
      (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))))
      (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (array_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))))
    ]) @definition.field)
(template_declaration
  (declaration
    declarator: [
      (qualified_identifier scope: (_) @qualifier name: (identifier) @name)
      (init_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))
      (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))
      (init_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))
      (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))
      (init_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))))
      (pointer_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))
      (init_declarator declarator: (pointer_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))
      (array_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))
      (init_declarator declarator: (array_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))
      (init_declarator declarator: (array_declarator declarator: (array_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))))
      (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))))
      (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (array_declarator declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))))
    ]) @definition.field)

; Variables of a file or namespace (not the locals of a function).
(translation_unit
  (declaration
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
  ]) @definition.variable)
(declaration_list
  (declaration
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
  ]) @definition.variable)
(preproc_if
  (declaration
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
  ]) @definition.variable)
(preproc_ifdef
  (declaration
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
  ]) @definition.variable)
(preproc_else
  (declaration
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
  ]) @definition.variable)
(linkage_specification
  (declaration
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
  ]) @definition.variable)
