; Java definitions. When two patterns capture the same @name node, the
; earlier pattern wins. Nested and inner classes are named through the
; classes around them (`OrderService.Order.id`); overloads share a name and
; are told apart by `#N`.

(package_declaration
  [(identifier) (scoped_identifier)] @name) @definition.package

(class_declaration
  name: (identifier) @name) @definition.class
(interface_declaration
  name: (identifier) @name) @definition.interface
(enum_declaration
  name: (identifier) @name) @definition.enum
(record_declaration
  name: (identifier) @name) @definition.class
(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(method_declaration
  name: (identifier) @name) @definition.method
(constructor_declaration
  name: (identifier) @name) @definition.constructor
(compact_constructor_declaration
  name: (identifier) @name) @definition.constructor
(annotation_type_element_declaration
  name: (identifier) @name) @definition.method

(enum_constant
  name: (identifier) @name) @definition.enum_member

; Fields (`int a, b;` declares two); a lambda assigned to a field is a
; function.
(field_declaration
  declarator: (variable_declarator
    name: (identifier) @name
    value: (lambda_expression))) @definition.function
(field_declaration
  declarator: (variable_declarator
    name: (identifier) @name)) @definition.field
(constant_declaration
  declarator: (variable_declarator
    name: (identifier) @name
    value: (lambda_expression))) @definition.function
(constant_declaration
  declarator: (variable_declarator
    name: (identifier) @name)) @definition.constant

; A record's components are its fields (`record Order(String id)`).
(record_declaration
  parameters: (formal_parameters
    (formal_parameter
      name: (identifier) @name) @definition.field))
