; ES module imports and the names they bind.

; import X from "m"
(import_statement
  (import_clause (identifier) @name)) @import

; import * as ns from "m"
(import_statement
  (import_clause (namespace_import (identifier) @name))) @import

; import { a, b as c } from "m"
(import_statement
  (import_clause (named_imports (import_specifier !alias name: (identifier) @name)))) @import
(import_statement
  (import_clause (named_imports (import_specifier alias: (identifier) @name)))) @import

; const x = require("m"), const { a, b: c } = require("m")
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (call_expression
      function: (identifier) @_req
      (#eq? @_req "require")))) @import
(lexical_declaration
  (variable_declarator
    name: (object_pattern
      [(shorthand_property_identifier_pattern) @name
       (pair_pattern value: (identifier) @name)])
    value: (call_expression
      function: (identifier) @_req
      (#eq? @_req "require")))) @import
