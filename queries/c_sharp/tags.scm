; C# definitions. When two patterns capture the same @name node, the
; earlier pattern wins. Overloads are listed each (`Add#1`, `Add#2`);
; each part of a partial class is listed in its own file.

(namespace_declaration
  name: (_) @name) @definition.namespace
(file_scoped_namespace_declaration
  name: (_) @name) @definition.namespace

(class_declaration
  name: (identifier) @name) @definition.class
(struct_declaration
  name: (identifier) @name) @definition.struct
(interface_declaration
  name: (identifier) @name) @definition.interface
(enum_declaration
  name: (identifier) @name) @definition.enum
; `record Point(int X, int Y)`, `record struct`, `record class`.
(record_declaration
  name: (identifier) @name) @definition.class
(delegate_declaration
  name: (identifier) @name) @definition.type

(enum_member_declaration
  name: (identifier) @name) @definition.enum_member

(method_declaration
  name: (identifier) @name) @definition.method
(constructor_declaration
  name: (identifier) @name) @definition.constructor
; `public static Order operator +(Order a, string b)`: the operator `+`.
(operator_declaration
  operator: _ @name) @definition.operator
; `implicit operator string(Order o)`: named by its target type.
(conversion_operator_declaration
  type: (_) @name) @definition.operator
; `int this[string sku]`: the indexer `this`.
(indexer_declaration
  "this" @name) @definition.property
(local_function_statement
  name: (identifier) @name) @definition.function

(property_declaration
  name: (identifier) @name) @definition.property
(event_declaration
  name: (identifier) @name) @definition.event
(event_field_declaration
  (variable_declaration
    (variable_declarator
      name: (identifier) @name))) @definition.event

; `const` fields are constants; other fields are fields.
((field_declaration
  (modifier) @_const
  (variable_declaration
    (variable_declarator
      name: (identifier) @name))) @definition.constant
  (#eq? @_const "const"))
(field_declaration
  (variable_declaration
    (variable_declarator
      name: (identifier) @name))) @definition.field

; `record Customer(string Name, string Email)`: positional properties.
(record_declaration
  (parameter_list
    (parameter
      name: (identifier) @name) @definition.property))
