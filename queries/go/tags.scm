; Go definitions. When two patterns capture the same @name node, the
; earlier pattern wins: a declaration of one spec (`type T struct{}`) is
; the whole declaration, keyword included; a spec of a group
; (`type ( A int; B string )`) is the spec alone.

; Methods are named through their receiver's type (`Cache.Get`, also for
; `(c *Cache[K, V])`): the type is a @qualifier, not a containing scope.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @qualifier
        (pointer_type (type_identifier) @qualifier)
        (generic_type type: (type_identifier) @qualifier)
        (pointer_type (generic_type type: (type_identifier) @qualifier))
      ]))
  name: (field_identifier) @name) @definition.method

(function_declaration
  name: (identifier) @name) @definition.function

; Types of the package (not those declared inside a function): structs,
; interfaces, other named types and aliases.
(source_file
  (type_declaration
    .
    (type_spec
      name: (type_identifier) @name
      type: (struct_type))
    .) @definition.struct)
(source_file
  (type_declaration
    .
    (type_spec
      name: (type_identifier) @name
      type: (interface_type))
    .) @definition.interface)
(source_file
  (type_declaration
    .
    (type_spec
      name: (type_identifier) @name)
    .) @definition.type)
(source_file
  (type_declaration
    .
    (type_alias
      name: (type_identifier) @name)
    .) @definition.type)

(source_file
  (type_declaration
    (type_spec
      name: (type_identifier) @name
      type: (struct_type)) @definition.struct))
(source_file
  (type_declaration
    (type_spec
      name: (type_identifier) @name
      type: (interface_type)) @definition.interface))
(source_file
  (type_declaration
    (type_spec
      name: (type_identifier) @name) @definition.type))
(source_file
  (type_declaration
    (type_alias
      name: (type_identifier) @name) @definition.type))

; Methods and fields of the package's interface and struct types (`A, B
; int` declares two); not those of a struct type written in place.
(source_file
  (type_declaration
    (type_spec
      type: (interface_type
        (method_elem
          name: (field_identifier) @name) @definition.method))))
(source_file
  (type_declaration
    (type_spec
      type: (struct_type
        (field_declaration_list
          (field_declaration
            name: (field_identifier) @name) @definition.field)))))

; Package-level constants and variables (not those inside functions).
(source_file
  (const_declaration
    .
    (const_spec
      name: (identifier) @name)
    .) @definition.constant)
(source_file
  (const_declaration
    (const_spec
      name: (identifier) @name) @definition.constant))
(source_file
  (var_declaration
    .
    (var_spec
      name: (identifier) @name)
    .) @definition.variable)
(source_file
  (var_declaration
    (var_spec
      name: (identifier) @name) @definition.variable))
(source_file
  (var_declaration
    (var_spec_list
      (var_spec
        name: (identifier) @name) @definition.variable)))
