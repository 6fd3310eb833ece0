; Import statements and the names they bind in the module.

; import os, os.path as p  -> binds `os` and `p`
(import_statement
  name: (dotted_name . (identifier) @name)) @import
(import_statement
  name: (aliased_import alias: (identifier) @name)) @import

; from x import a, b as c  -> binds `a` and `c`
(import_from_statement
  name: (dotted_name . (identifier) @name)) @import
(import_from_statement
  name: (aliased_import alias: (identifier) @name)) @import

; from x import *  -> a glob: binds no name of its own
(import_from_statement
  (wildcard_import)) @import
