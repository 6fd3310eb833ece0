; Imports and the names they bind: `import java.util.List;` binds `List`,
; `import static java.util.Objects.requireNonNull;` binds `requireNonNull`;
; `import java.util.*;` is a glob.
(import_declaration
  (scoped_identifier
    name: (identifier) @name)
  .) @import
(import_declaration
  (asterisk)) @import
