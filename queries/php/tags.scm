; PHP definitions. When two patterns capture the same @name node, the
; earlier pattern wins. A `namespace X;` statement holds the declarations
; after it (`symbols.to_end`), `namespace X { }` those of its block.

(namespace_definition
  name: (namespace_name) @name) @definition.namespace

(class_declaration
  name: (name) @name) @definition.class
(interface_declaration
  name: (name) @name) @definition.interface
(trait_declaration
  name: (name) @name) @definition.trait
(enum_declaration
  name: (name) @name) @definition.enum

(enum_case
  name: (name) @name) @definition.enum_member

(method_declaration
  name: (name) @name) @definition.method

(function_definition
  name: (name) @name) @definition.function

; `public const X = 1;` in a type, `const X = 1;` at the top level.
(const_declaration
  (const_element
    (name) @name)) @definition.constant

; `private int $count = 0;`: the property `count`.
(property_declaration
  (property_element
    (variable_name
      (name) @name))) @definition.property

; Promoted constructor parameters (`public function __construct(private
; string $owner)`) are properties of the class too.
(property_promotion_parameter
  name: (variable_name
    (name) @name)) @definition.property
