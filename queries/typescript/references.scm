; inherits: ecma

; `Config.Options` in a type names a member of `Config`.
(nested_type_identifier
  module: (_) @receiver
  name: (type_identifier) @reference.member)

; `(typeof Cls)["name"]` and `Type["name"]` name a member of that type by
; a string key (zod: `as (typeof ZodString)["create"]`).
(lookup_type
  (parenthesized_type (type_query (identifier) @receiver))
  (literal_type (string (string_fragment) @reference.member)))
(lookup_type
  [(type_identifier) (nested_type_identifier) (generic_type)] @receiver
  (literal_type (string (string_fragment) @reference.member)))

; TypeScript parameters (with types, defaults, `private` properties).
(required_parameter pattern: (identifier) @local.definition)
(optional_parameter pattern: (identifier) @local.definition)

(type_identifier) @reference.type

; Bases: `class B extends A implements I`, `interface K extends L`: a member
; of the same name in one is overridden or implemented.
(extends_clause value: (_) @base)
(implements_clause (_) @base)
(extends_type_clause type: (_) @base)

; The type a local is declared with (`x: Foo`, `x: Foo<T>`) or constructed
; from (`new Foo()`): one named type only, so `x.m()` is `Foo`'s member.
(required_parameter pattern: (identifier) @local.definition
  type: (type_annotation [(type_identifier) (generic_type)] @local.type))
(optional_parameter pattern: (identifier) @local.definition
  type: (type_annotation [(type_identifier) (generic_type)] @local.type))
(variable_declarator name: (identifier) @local.definition
  type: (type_annotation [(type_identifier) (generic_type)] @local.type))
(variable_declarator name: (identifier) @local.definition
  value: (new_expression constructor: (identifier) @local.type))
