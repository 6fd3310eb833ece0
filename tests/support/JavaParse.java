// javac's own parser (the compiler tree API: no classpath, no annotation
// processing, no attribution), run by the JDK's source launcher with one
// path per line on stdin.
// - `java JavaParse.java`: the judge of edited Java files in
//   tests/trust.rs; prints `path | message` for the first syntax error of
//   each file it rejects.
// - `java JavaParse.java names`: the oracle of benches/lang_symbols.py java;
//   prints `path<TAB>name path` for what Scalpel lists: classes,
//   interfaces, enums, records and annotation types (nested and local ones
//   through what holds them), methods, constructors (named like their
//   class), fields and enum constants; an anonymous class is no name (its
//   members are named through what holds it); `path<TAB>!error` for a file
//   it rejects.
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreeScanner;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

public class JavaParse {
    public static void main(String[] args) throws Exception {
        boolean names = args.length > 0 && args[0].equals("names");
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager files = compiler.getStandardFileManager(null, null, null);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String path;
        while ((path = in.readLine()) != null) {
            if (path.isEmpty()) {
                continue;
            }
            DiagnosticCollector<JavaFileObject> found = new DiagnosticCollector<>();
            Iterable<? extends JavaFileObject> units = files.getJavaFileObjectsFromFiles(List.of(new File(path)));
            JavacTask task = (JavacTask) compiler.getTask(null, files, found, List.of("-proc:none"), null, units);
            Iterable<? extends CompilationUnitTree> trees = task.parse();
            Diagnostic<? extends JavaFileObject> error = found.getDiagnostics().stream()
                .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                .findFirst()
                .orElse(null);
            if (error != null) {
                System.out.println(names
                    ? path + "\t!error"
                    : path + " | " + error.getLineNumber() + ": " + error.getMessage(null).replace('\n', ' '));
            } else if (names) {
                for (CompilationUnitTree unit : trees) {
                    printNames(path, unit);
                }
            }
        }
    }

    static void printNames(String path, CompilationUnitTree unit) {
        new TreeScanner<Void, Deque<String>>() {
            private void out(Deque<String> names, String name) {
                StringBuilder b = new StringBuilder();
                for (var it = names.descendingIterator(); it.hasNext();) {
                    b.append(it.next()).append('.');
                }
                System.out.println(path + "\t" + b + name);
            }

            @Override
            public Void visitClass(ClassTree t, Deque<String> names) {
                String name = t.getSimpleName().toString();
                if (!name.isEmpty()) {
                    out(names, name);
                    names.push(name);
                }
                for (Tree m : t.getMembers()) {
                    if (m instanceof VariableTree v) {
                        out(names, v.getName().toString());
                        names.push(v.getName().toString());
                        scan(v.getInitializer(), names);
                        names.pop();
                    } else {
                        scan(m, names);
                    }
                }
                if (!name.isEmpty()) {
                    names.pop();
                }
                return null;
            }

            @Override
            public Void visitMethod(MethodTree t, Deque<String> names) {
                String name = t.getName().toString();
                if (name.equals("<init>")) {
                    name = names.peek();
                }
                out(names, name);
                names.push(name);
                scan(t.getBody(), names);
                scan(t.getDefaultValue(), names);
                names.pop();
                return null;
            }
        }.scan(unit, new ArrayDeque<>());
    }
}
