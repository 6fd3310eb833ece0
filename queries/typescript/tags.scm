; inherits: ecma, typescript-casts, typescript-shared
