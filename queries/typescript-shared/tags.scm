; TypeScript definitions shared by .ts and .tsx (both inherit this file after
; ecma). Not a language of its own: it has no grammars/ file.

; Class fields holding functions are methods; other fields are fields.
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression)]) @definition.method

(public_field_definition
  name: (_) @name) @definition.field

; Overload signatures and declarations without bodies (addressed as `f#N`).
(function_signature
  name: (identifier) @name) @definition.function

(class_body
  (method_signature
    name: (_) @name) @definition.method)

(abstract_method_signature
  name: (_) @name) @definition.method

(abstract_class_declaration
  name: (_) @name) @definition.class

(interface_declaration
  name: (_) @name) @definition.interface

; Members of interfaces and of object types named by a type alias (not of
; inline object types in parameters).
(interface_body
  [
    (property_signature name: (_) @name) @definition.property
    (method_signature name: (_) @name) @definition.method
  ])

(type_alias_declaration
  value: (object_type
    [
      (property_signature name: (_) @name) @definition.property
      (method_signature name: (_) @name) @definition.method
    ]))

(type_alias_declaration
  name: (_) @name) @definition.type

(enum_declaration
  name: (_) @name) @definition.enum

(enum_body
  name: (_) @name @definition.enum_member)

(enum_body
  (enum_assignment
    name: (_) @name) @definition.enum_member)

; `namespace N {}` and `module M {}` / `declare module "m" {}`.
(internal_module
  name: (_) @name) @definition.namespace

(module
  name: (_) @name) @definition.module

; `declare global { ... }` is a namespace named `global`.
(ambient_declaration
  "global" @name
  (statement_block)) @definition.namespace

; `const` values at module level and directly in a namespace or module body
; (exported or not) are constants: the whole declaration when it declares one
; name (a trailing comment on its line, a named child, is allowed by a
; pattern of its own), else each declarator.
(program
  [
    (lexical_declaration kind: "const" . (variable_declarator name: (identifier) @name) .) @definition.constant
    (lexical_declaration kind: "const" . (variable_declarator name: (identifier) @name) . (comment) .) @definition.constant
    (export_statement
      declaration: (lexical_declaration kind: "const" . (variable_declarator name: (identifier) @name) .) @definition.constant)
    (export_statement
      declaration: (lexical_declaration kind: "const" . (variable_declarator name: (identifier) @name) . (comment) .) @definition.constant)
  ])

(program
  [
    (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name) @definition.constant)
    (export_statement
      declaration: (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name) @definition.constant))
  ])

(internal_module
  body: (statement_block
  [
    (lexical_declaration kind: "const" . (variable_declarator name: (identifier) @name) .) @definition.constant
    (lexical_declaration kind: "const" . (variable_declarator name: (identifier) @name) . (comment) .) @definition.constant
    (export_statement
      declaration: (lexical_declaration kind: "const" . (variable_declarator name: (identifier) @name) .) @definition.constant)
    (export_statement
      declaration: (lexical_declaration kind: "const" . (variable_declarator name: (identifier) @name) . (comment) .) @definition.constant)
  ]))

(internal_module
  body: (statement_block
  [
    (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name) @definition.constant)
    (export_statement
      declaration: (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name) @definition.constant))
  ]))

(module
  body: (statement_block
  [
    (lexical_declaration kind: "const" . (variable_declarator name: (identifier) @name) .) @definition.constant
    (lexical_declaration kind: "const" . (variable_declarator name: (identifier) @name) . (comment) .) @definition.constant
    (export_statement
      declaration: (lexical_declaration kind: "const" . (variable_declarator name: (identifier) @name) .) @definition.constant)
    (export_statement
      declaration: (lexical_declaration kind: "const" . (variable_declarator name: (identifier) @name) . (comment) .) @definition.constant)
  ]))

(module
  body: (statement_block
  [
    (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name) @definition.constant)
    (export_statement
      declaration: (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name) @definition.constant))
  ]))
