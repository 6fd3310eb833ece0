// The C# oracle of benches/lang_symbols.py c_sharp: mono's own C# parser
// (Mono.CSharp.dll, Debian's libmono-csharp4.0c-cil; the parser `mcs` runs,
// C# 7 and what `-langversion:experimental` adds), compiled by mcs and run
// by mono with one path per line on stdin. For each file it prints
// `path<TAB>kind<TAB>line of the name<TAB>name` for the types (classes,
// structs, interfaces, enums, delegates, nested ones too) and their members
// (methods, constructors, destructors, properties, indexers, events,
// fields and constants with every declarator, operators, enum members);
// `path<TAB>!error` for a file the parser rejects. Namespaces are not
// printed.
using System;
using System.Collections.Generic;
using System.IO;
using System.Text;
using Mono.CSharp;

class CsNames {
    static void Print(string path, string kind, Location loc, string name) {
        Console.WriteLine("{0}\t{1}\t{2}\t{3}", path, kind, loc.Row, name);
    }

    static void Walk(string path, TypeContainer c) {
        if (c.Containers != null)
            foreach (var t in c.Containers) {
                if (!(t is NamespaceContainer))
                    Print(path, t.GetType().Name, t.Location, t.MemberName.Name);
                Walk(path, t);
            }
        var td = c as TypeDefinition;
        if (td == null || td.Members == null)
            return;
        foreach (var m in td.Members) {
            if (m is TypeContainer)
                continue;
            Print(path, m.GetType().Name, m.Location, m.MemberName.Name);
            var f = m as FieldBase;
            if (f != null && f.Declarators != null)
                foreach (var d in f.Declarators)
                    Print(path, m.GetType().Name, d.Name.Location, d.Name.Value);
        }
    }

    static void Main() {
        string path;
        while ((path = Console.In.ReadLine()) != null) {
            if (path.Length == 0)
                continue;
            var settings = new CompilerSettings();
            settings.Version = LanguageVersion.Experimental;
            var printer = new StreamReportPrinter(TextWriter.Null);
            var ctx = new CompilerContext(settings, printer);
            var module = new ModuleContainer(ctx);
            var session = new ParserSession {
                UseJayGlobalArrays = true,
                LocatedTokens = new LocatedToken[15000]
            };
            var file = new SourceFile(Path.GetFileName(path), path, 1);
            Location.Initialize(new List<SourceFile> { file });
            var unit = new CompilationSourceFile(module, file);
            module.AddTypeContainer(unit);
            using (var stream = File.OpenRead(path)) {
                var reader = new SeekableStreamReader(stream, Encoding.UTF8);
                new CSharpParser(reader, unit, session).parse();
            }
            if (printer.ErrorsCount > 0) {
                Console.WriteLine("{0}\t!error", path);
                continue;
            }
            Walk(path, unit);
        }
    }
}
