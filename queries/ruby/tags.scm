; Ruby definitions. When two patterns capture the same @name node, the
; earlier pattern wins.

(module
  name: [(constant) (scope_resolution)] @name) @definition.module

(class
  name: [(constant) (scope_resolution)] @name) @definition.class

; `def m` at the top level: a private method of Object, called like a
; function.
(program
  (method
    name: (_) @name) @definition.function)

; `def m` in a class or module, and in `class << self` (a singleton method:
; `Warehouse.registry`, as `def self.registry` is).
(method
  name: (_) @name) @definition.method

(singleton_method
  name: (_) @name) @definition.method

; `attr_reader :a, :b`, `attr_writer`, `attr_accessor`: one property per
; symbol (or string). One pattern each for both forms: every pattern rooted
; at `call` costs the query's compile about 13 ms.
((call
  method: (identifier) @_attr
  arguments: (argument_list
    [(simple_symbol) @name (string . (string_content) @name .)])) @definition.property
  (#any-of? @_attr "attr_reader" "attr_writer" "attr_accessor" "attr"))

; `define_method(:name) { }` and `define_method("name") do end`, best
; effort: a name built at run time (`"#{verb}_all"`) is no symbol.
((call
  method: (identifier) @_define
  arguments: (argument_list
    .
    [(simple_symbol) @name (string . (string_content) @name .)])) @definition.method
  (#eq? @_define "define_method"))

; Constants: `VERSION = "1.0"`, `Point = Struct.new(:x, :y)`, and one of
; another namespace, `Net::HTTPMultipleChoice = ..` (named as a class
; `Net::HTTP` is, its last part found by the name path).
(assignment
  left: [(constant) (scope_resolution)] @name) @definition.constant
