; Rust definitions. When two patterns capture the same @name node, the
; earlier pattern wins: methods are listed before plain functions.

; Methods: functions in impl and trait bodies (required and provided).
(impl_item
  body: (declaration_list
    (function_item
      name: (identifier) @name) @definition.method))

(trait_item
  body: (declaration_list
    (function_item
      name: (identifier) @name) @definition.method))

(trait_item
  body: (declaration_list
    (function_signature_item
      name: (identifier) @name) @definition.method))

(function_item
  name: (identifier) @name) @definition.function

; Declarations in `extern` blocks.
(function_signature_item
  name: (identifier) @name) @definition.function

; `impl` blocks are symbols named by their header without generic parameters
; or where clause (`impl Display for Point`, `impl<T> From<T> for Wrapper<T>`
; is `impl From<T> for Wrapper<T>`): several @name captures are joined by
; spaces. The same node is also a @scope: what it contains is named through
; its type (`Point::new`, `io::Error::from`), generics and references dropped.
(impl_item
  "impl" @name
  trait: (_) @name
  "for" @name
  type: (_) @name) @definition.impl

(impl_item
  "impl" @name
  !trait
  type: (_) @name) @definition.impl

(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier) @name
    (generic_type type: (scoped_type_identifier) @name)
    (reference_type type: (type_identifier) @name)
    (reference_type type: (primitive_type) @name)
    (reference_type type: (generic_type type: (type_identifier) @name))
    (reference_type type: (scoped_type_identifier) @name)
    (reference_type type: (generic_type type: (scoped_type_identifier) @name))
  ]) @scope

(impl_item
  type: (_) @name) @scope

(struct_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name) @definition.enum

(union_item
  name: (type_identifier) @name) @definition.union

(enum_variant
  name: (identifier) @name) @definition.enum_member

(field_declaration
  name: (field_identifier) @name) @definition.field

(trait_item
  name: (type_identifier) @name) @definition.trait

(type_item
  name: (type_identifier) @name) @definition.type

(associated_type
  name: (type_identifier) @name) @definition.type

(const_item
  name: (identifier) @name) @definition.constant

(static_item
  name: (identifier) @name) @definition.variable

(mod_item
  name: (identifier) @name) @definition.module

(macro_definition
  name: (identifier) @name) @definition.macro
