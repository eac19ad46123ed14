package io.lockkit.examples.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads the repository's user documentation and the snippet regions of its Java sources, for
 * {@link DocumentationTest}.
 *
 * <p>A snippet region is the code between a line comment {@code // <tag>:begin} (or
 * {@code // <tag>:<name>-begin}) and the matching {@code // <tag>:end} ({@code // <tag>:<name>-end}),
 * e.g. {@code // guide:retry-begin} … {@code // guide:retry-end}. Its text is compared without its
 * common indentation, without trailing spaces and without marker lines of other regions inside it,
 * so a page shows a snippet exactly as the formatter left it in the source.
 */
final class Documentation {

    private static final Pattern BEGIN = Pattern.compile("^\\s*// ([a-z][a-z0-9-]*:(?:[a-z0-9-]+-)?)begin\\s*$");
    private static final Pattern ANY_MARKER =
            Pattern.compile("^\\s*// [a-z][a-z0-9-]*:(?:[a-z0-9-]+-)?(?:begin|end)\\s*$");
    private static final Pattern FENCE = Pattern.compile("^(\\s*)(```+|~~~+)\\s*([A-Za-z0-9_+-]*)\\s*$");
    private static final Pattern LINK = Pattern.compile("!?\\[([^\\]]*)\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");

    private Documentation() {}

    /** A fenced code block of a Markdown file. */
    record Block(Path file, int line, String language, String text) {
        @Override
        public String toString() {
            return file.getFileName() + ":" + line + " (```" + language + ")";
        }
    }

    /** A snippet region of a source file. */
    record Region(Path file, int line, String key, String text) {
        @Override
        public String toString() {
            return file.getFileName() + ":" + line + " (" + key + ")";
        }
    }

    /** A relative link of a Markdown file, with its target and anchor (either may be empty). */
    record Link(Path file, int line, String target, String anchor) {}

    /** The repository root: the nearest directory upwards from the working directory holding lockkit's parent POM. */
    static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            Path pom = dir.resolve("pom.xml");
            if (Files.isRegularFile(pom) && isParentPom(read(pom))) {
                return dir;
            }
            dir = dir.getParent();
        }
        throw new IllegalStateException(
                "no lockkit-parent pom.xml above " + Path.of("").toAbsolutePath());
    }

    /** Whether a POM is lockkit's parent itself: a module's POM names it too, as its parent, but has no modules. */
    static boolean isParentPom(String pom) {
        return pom.contains("<artifactId>lockkit-parent</artifactId>") && pom.contains("<modules>");
    }

    /**
     * The user and contributor documentation: the Markdown files at the root, under {@code docs/},
     * and each module's README (not generated reports such as benchmark results).
     */
    static List<Path> markdownFiles(Path root) {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> top = Files.list(root)) {
            top.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path docs = root.resolve("docs");
        if (Files.isDirectory(docs)) {
            try (Stream<Path> all = Files.walk(docs)) {
                all.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        for (Path module : modules(root)) {
            Path readme = module.resolve("README.md");
            if (Files.isRegularFile(readme)) {
                files.add(readme);
            }
        }
        return files;
    }

    /**
     * The module directories: every {@code lock-*} directory with a POM, and the projects nested one level
     * inside them (such as the outside provider in {@code lock-examples/file-provider}, built by its own POM).
     */
    static List<Path> modules(Path root) {
        List<Path> modules = new ArrayList<>();
        for (Path module : projects(root)) {
            if (!module.getFileName().toString().startsWith("lock-")) {
                continue;
            }
            modules.add(module);
            for (Path nested : projects(module)) {
                if (!nested.getFileName().toString().equals("target")) {
                    modules.add(nested);
                }
            }
        }
        return modules;
    }

    private static List<Path> projects(Path directory) {
        try (Stream<Path> children = Files.list(directory)) {
            return children.filter(p -> Files.isRegularFile(p.resolve("pom.xml")))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every Java source of every module, main and test. */
    static List<Path> javaSources(Path root) {
        List<Path> sources = new ArrayList<>();
        for (Path module : modules(root)) {
            Path src = module.resolve("src");
            if (!Files.isDirectory(src)) {
                continue;
            }
            try (Stream<Path> all = Files.walk(src)) {
                all.filter(p -> p.toString().endsWith(".java")).sorted().forEach(sources::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return sources;
    }

    static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The fenced code blocks of a Markdown text. */
    static List<Block> blocks(Path file, String markdown) {
        List<Block> blocks = new ArrayList<>();
        List<String> lines = markdown.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            String fence = open.group(2);
            int start = i;
            List<String> body = new ArrayList<>();
            for (i++; i < lines.size(); i++) {
                Matcher close = FENCE.matcher(lines.get(i));
                if (close.matches()
                        && close.group(2).startsWith(fence)
                        && close.group(3).isEmpty()) {
                    break;
                }
                body.add(lines.get(i));
            }
            blocks.add(new Block(file, start + 1, open.group(3).toLowerCase(Locale.ROOT), normalize(body)));
        }
        return blocks;
    }

    /** The snippet regions of a Java source. */
    static List<Region> regions(Path file, String source) {
        List<Region> regions = new ArrayList<>();
        List<String> lines = source.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            Matcher begin = BEGIN.matcher(lines.get(i));
            if (!begin.matches()) {
                continue;
            }
            String key = begin.group(1);
            String end = "// " + key + "end";
            List<String> body = new ArrayList<>();
            int j = i + 1;
            for (; j < lines.size() && !lines.get(j).trim().equals(end); j++) {
                if (!ANY_MARKER.matcher(lines.get(j)).matches()) {
                    body.add(lines.get(j));
                }
            }
            if (j == lines.size()) {
                throw new IllegalStateException(
                        file + ":" + (i + 1) + ": '" + lines.get(i).trim() + "' has no '" + end + "'");
            }
            regions.add(new Region(file, i + 1, key.substring(0, key.length() - 1), normalize(body)));
        }
        return regions;
    }

    /** Lines without their common indentation and trailing spaces, without blank lines at either end. */
    static String normalize(List<String> lines) {
        List<String> trimmed = new ArrayList<>();
        for (String line : lines) {
            trimmed.add(line.stripTrailing());
        }
        while (!trimmed.isEmpty() && trimmed.get(0).isEmpty()) {
            trimmed.remove(0);
        }
        while (!trimmed.isEmpty() && trimmed.get(trimmed.size() - 1).isEmpty()) {
            trimmed.remove(trimmed.size() - 1);
        }
        int indent = Integer.MAX_VALUE;
        for (String line : trimmed) {
            if (!line.isEmpty()) {
                indent = Math.min(indent, line.length() - line.stripLeading().length());
            }
        }
        StringBuilder text = new StringBuilder();
        for (String line : trimmed) {
            text.append(line.isEmpty() ? "" : line.substring(indent)).append('\n');
        }
        return text.toString();
    }

    /** The relative links of a Markdown text (not those inside code blocks or code spans). */
    static List<Link> links(Path file, String markdown) {
        List<Link> links = new ArrayList<>();
        List<String> lines = markdown.lines().toList();
        boolean inBlock = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (FENCE.matcher(line).matches()) {
                inBlock = !inBlock;
                continue;
            }
            if (inBlock) {
                continue;
            }
            Matcher link = LINK.matcher(line.replaceAll("`[^`]*`", "``"));
            while (link.find()) {
                String href = link.group(2);
                if (href.matches("^[a-z][a-z0-9+.-]*:.*")) {
                    continue; // https:, mailto: and the like
                }
                int hash = href.indexOf('#');
                String target = hash < 0 ? href : href.substring(0, hash);
                String anchor = hash < 0 ? "" : href.substring(hash + 1);
                links.add(new Link(file, i + 1, target, anchor));
            }
        }
        return links;
    }

    /** The anchors GitHub gives the headings of a Markdown text. */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inBlock = false;
        for (String line : markdown.lines().toList()) {
            if (FENCE.matcher(line).matches()) {
                inBlock = !inBlock;
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (inBlock || !heading.matches()) {
                continue;
            }
            String slug = slug(heading.group(2));
            int n = seen.merge(slug, 1, Integer::sum);
            anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
        }
        return anchors;
    }

    /** GitHub's heading anchor: lower case, punctuation dropped (but {@code -} and {@code _}), spaces as {@code -}. */
    static String slug(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1"); // a link's text only
        StringBuilder slug = new StringBuilder();
        text.toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                slug.appendCodePoint(c);
            } else if (c == ' ') {
                slug.append('-');
            }
        });
        return slug.toString();
    }
}
