/*
 * The size allowlist may only shrink: this check fails the build on an entry that no longer names
 * anything over the bounds. The build (parent POM, verify) runs it as a single-file program:
 *
 *   java StaleSizeAllowlist.java <allowlist.xml> <raw report.xml> <module dir> <repository root>
 *
 * In a module, it reads Checkstyle's report of the size checks run without the allowlist (the raw
 * report) and fails when an entry whose files pattern matches a src/main Java file of the module
 * matches none of the report's violations: the file or method is within the bounds now (or its size changed), so the
 * entry goes (or is set to the new size). In the repository root (module dir = root), it fails
 * when an entry's files pattern matches no src/main Java file of any module (a file moved or
 * deleted). An entry matches a violation as Checkstyle's SuppressionFilter does: each given
 * pattern (files, checks, message) found in the file's path, the check's name and the message.
 */
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

public class StaleSizeAllowlist {
    record Entry(String files, String checks, String message) {
        boolean matches(String file, String source, String text) {
            return Pattern.compile(files).matcher(file).find()
                    && (checks.isEmpty() || Pattern.compile(checks).matcher(source).find())
                    && (message.isEmpty() || Pattern.compile(message).matcher(text).find());
        }

        @Override
        public String toString() {
            return "<suppress checks=\"" + checks + "\" files=\"" + files + "\" message=\"" + message + "\"/>";
        }
    }

    record Violation(String file, String source, String message) {}

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            throw new IllegalArgumentException("usage: <allowlist.xml> <raw report.xml> <module dir> <root>");
        }
        List<Entry> entries = entries(Path.of(args[0]));
        Path report = Path.of(args[1]);
        Path module = Path.of(args[2]).toRealPath();
        Path root = Path.of(args[3]).toRealPath();
        List<String> problems = new ArrayList<>();
        if (module.equals(root)) {
            List<String> sources = mainSources(root);
            for (Entry entry : entries) {
                if (sources.stream().noneMatch(file -> Pattern.compile(entry.files()).matcher(file).find())) {
                    problems.add("names no src/main file (moved or deleted? remove the entry): " + entry);
                }
            }
        } else {
            // The module's own files, not the report's: Checkstyle's report leaves out the files its
            // cache knows to be within the bounds.
            List<String> sources = mainSources(module);
            List<Violation> violations = Files.exists(report) ? violations(report) : List.of();
            for (Entry entry : entries) {
                boolean ours = sources.stream()
                        .anyMatch(file -> Pattern.compile(entry.files()).matcher(file).find());
                if (ours && violations.stream().noneMatch(v -> entry.matches(v.file(), v.source(), v.message()))) {
                    problems.add("matches nothing over the bounds any more (remove the entry, or set the size"
                            + " Checkstyle reports): " + entry);
                }
            }
        }
        if (!problems.isEmpty()) {
            problems.forEach(p -> System.err.println("[size allowlist] stale entry " + p));
            System.err.println("[size allowlist] " + args[0] + " may only shrink: a stale entry fails the build.");
            System.exit(1);
        }
    }

    private static List<Entry> entries(Path allowlist) throws Exception {
        var factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        NodeList nodes = factory.newDocumentBuilder().parse(allowlist.toFile()).getElementsByTagName("suppress");
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            Element e = (Element) nodes.item(i);
            if (e.getAttribute("files").isEmpty()) {
                throw new IllegalArgumentException("every allowlist entry names its files: " + e.getAttribute("checks"));
            }
            entries.add(new Entry(e.getAttribute("files"), e.getAttribute("checks"), e.getAttribute("message")));
        }
        return entries;
    }

    private static List<Violation> violations(Path report) throws Exception {
        NodeList files = DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(report.toFile())
                .getElementsByTagName("file");
        List<Violation> violations = new ArrayList<>();
        for (int i = 0; i < files.getLength(); i++) {
            Element file = (Element) files.item(i);
            NodeList errors = file.getElementsByTagName("error");
            for (int j = 0; j < errors.getLength(); j++) {
                Element error = (Element) errors.item(j);
                violations.add(
                        new Violation(file.getAttribute("name"), error.getAttribute("source"), error.getAttribute("message")));
            }
        }
        return violations;
    }

    /** The Java files of src/main/java of {@code dir} and of each folder right below it. */
    private static List<String> mainSources(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir, 1)) {
            List<String> sources = new ArrayList<>();
            for (Path main : paths.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).toList()) {
                try (Stream<Path> java = Files.walk(main)) {
                    java.filter(f -> f.toString().endsWith(".java")).forEach(f -> sources.add(f.toString()));
                }
            }
            return sources;
        }
    }
}
