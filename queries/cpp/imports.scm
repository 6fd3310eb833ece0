; `#include` binds no name of its own: everything the header declares
; becomes visible, as with a glob.
(preproc_include) @import
