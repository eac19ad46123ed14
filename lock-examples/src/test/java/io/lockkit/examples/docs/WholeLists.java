package io.lockkit.examples.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the documentation's lists must name, read from the build itself, and the lists of a page,
 * for {@link WholeListsTest}.
 *
 * <p>The truth comes from the repository, not from a copy: the published modules are the parent
 * POM's modules but those its release profile excludes from publishing; the tested backends are the
 * words of {@link #BACKEND_WORDS} that the display names of the contract runs ({@code *ContractTest}
 * classes extending the kit) use. A list is either marked ({@code <!-- whole-list:KIND -->} up to
 * {@code <!-- end-list -->}: it must name every item of its kind) or a unit of text: a sentence, a
 * list item, a paragraph or a table that names several items of a kind, which must then name them all.
 */
final class WholeLists {

    /** The words that name a tested backend in a contract run's display name and on a page. */
    static final List<String> BACKEND_WORDS =
            List.of("standalone", "Sentinel", "Cluster", "PostgreSQL", "MariaDB", "H2");

    /** Backends named together: a unit naming two of a group must name the group's every tested one. */
    static final List<List<String>> BACKEND_GROUPS =
            List.of(List.of("standalone", "Sentinel", "Cluster"), List.of("PostgreSQL", "MariaDB", "H2"));

    /** A unit naming this many published modules is a module list. */
    static final int MODULE_LIST_SIZE = 6;

    /**
     * The marker of a paragraph or table that names a few items of a kind on purpose: on a line of
     * its own just before it, or anywhere in the paragraph.
     */
    static final String PARTIAL = "<!-- partial-list -->";

    private static final Pattern MARK = Pattern.compile("<!-- whole-list:([a-z]+) -->");
    private static final String END = "<!-- end-list -->";
    private static final Pattern DISPLAY_NAME = Pattern.compile("@DisplayName\\(\"[^\"]*? on ([^\"]*)\"\\)");

    private WholeLists() {}

    /** A run of text that may list things: a marked list, a table, a list item or a paragraph. */
    record Unit(Path file, int line, String kind, String text) {
        @Override
        public String toString() {
            return file.getFileName() + ":" + line;
        }
    }

    /**
     * The published modules: the parent POM's modules but those its release profile excludes. The
     * parent POM itself is published too, but applications never add it, so lists need not name it.
     */
    static Set<String> publishedModules(String parentPom) {
        Set<String> modules = new LinkedHashSet<>();
        modules.addAll(elements(section(parentPom, "modules"), "module"));
        modules.removeAll(elements(section(parentPom, "excludeArtifacts"), "artifact"));
        return modules;
    }

    /** The backend words that contract runs name after "on" in their display names, in {@link #BACKEND_WORDS}' order. */
    static Set<String> testedBackends(Map<String, String> contractSources) {
        Set<String> found = new LinkedHashSet<>();
        for (Map.Entry<String, String> source : contractSources.entrySet()) {
            Matcher name = DISPLAY_NAME.matcher(source.getValue());
            String on = name.find() ? name.group(1) : "(no display name \"… on …\")";
            List<String> words =
                    BACKEND_WORDS.stream().filter(w -> contains(on, w)).toList();
            if (words.isEmpty()) {
                throw new IllegalStateException(source.getKey() + " runs the contract on \"" + on
                        + "\", which names none of " + BACKEND_WORDS + ": add its backend's word to"
                        + " WholeLists.BACKEND_WORDS and to the documentation's lists");
            }
            found.addAll(words);
        }
        Set<String> ordered = new LinkedHashSet<>(BACKEND_WORDS);
        ordered.retainAll(found);
        return ordered;
    }

    /**
     * The contract runs on a backend, by file name: test classes extending the kit whose display name
     * reads "provider on backend" (the kit's own runs on in-JVM test providers name no backend).
     */
    static Map<String, String> contractSources(Path root) {
        Map<String, String> sources = new LinkedHashMap<>();
        for (Path source : Documentation.javaSources(root)) {
            String text = Documentation.read(source);
            if (source.toString().contains("/src/test/")
                    && source.getFileName().toString().endsWith("ContractTest.java")
                    && text.contains("extends LockContractTest")
                    && DISPLAY_NAME.matcher(text).find()) {
                sources.put(root.relativize(source).toString(), text);
            }
        }
        return sources;
    }

    /** The packages of the published modules' main sources, {@code .internal} ones aside. */
    static Set<String> exportedPackages(Path root, Set<String> modules) {
        Set<String> packages = new LinkedHashSet<>();
        for (String module : modules) {
            Path main = root.resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(main)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(main)) {
                files.filter(p -> p.getFileName().toString().equals("package-info.java"))
                        .map(p -> main.relativize(p.getParent()).toString().replace('/', '.'))
                        .filter(p -> !p.contains(".internal"))
                        .sorted()
                        .forEach(packages::add);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return packages;
    }

    /**
     * The units of a page outside code blocks: each marked list (kind = its mark), and each table,
     * list item and paragraph (kind empty).
     */
    static List<Unit> units(Path file, String markdown) {
        List<Unit> units = new ArrayList<>();
        List<String> lines = markdown.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher mark = MARK.matcher(line);
            if (line.stripLeading().startsWith("```") || line.stripLeading().startsWith("~~~")) {
                i = closingFence(lines, i);
            } else if (mark.find()) {
                int start = i;
                StringBuilder text = new StringBuilder();
                for (i++; i < lines.size() && !lines.get(i).contains(END); i++) {
                    text.append(lines.get(i)).append('\n');
                }
                if (i == lines.size()) {
                    throw new IllegalStateException(
                            file + ":" + (start + 1) + ": '" + mark.group() + "' has no '" + END + "'");
                }
                units.add(new Unit(file, start + 1, mark.group(1), text.toString()));
            } else if (line.strip().equals(PARTIAL) && i + 1 < lines.size()) {
                i = prose(file, lines, i + 1, units, true);
            } else if (!line.isBlank() && !line.stripLeading().startsWith("#")) {
                i = prose(file, lines, i, units, false);
            }
        }
        return units;
    }

    /** Adds the table, paragraph or list item starting at {@code start}; returns its last line. */
    private static int prose(Path file, List<String> lines, int start, List<Unit> units, boolean partial) {
        boolean table = lines.get(start).stripLeading().startsWith("|");
        StringBuilder text = new StringBuilder(lines.get(start));
        int i = start + 1;
        for (; i < lines.size() && continues(lines.get(i), table); i++) {
            text.append(table ? "\n" : " ").append(lines.get(i).strip());
        }
        // A marker before the block, or anywhere in a paragraph, excuses each of its units.
        String mark = partial || text.indexOf(PARTIAL) >= 0 ? PARTIAL : "";
        units.add(new Unit(file, start + 1, "", mark + text));
        return i - 1;
    }

    private static boolean continues(String line, boolean table) {
        String s = line.stripLeading();
        if (table) {
            return s.startsWith("|");
        }
        return !s.isEmpty()
                && !s.startsWith("|")
                && !s.startsWith("#")
                && !s.startsWith("```")
                && !s.startsWith("<!--")
                && !s.matches("([-*]|\\d+\\.)\\s.*");
    }

    private static int closingFence(List<String> lines, int open) {
        String fence = lines.get(open).strip().replaceAll("[^`~].*", "");
        for (int i = open + 1; i < lines.size(); i++) {
            if (lines.get(i).strip().equals(fence)) {
                return i;
            }
        }
        return lines.size();
    }

    /** The items of {@code all} that {@code text} names (a module or backend word as a whole word). */
    static Set<String> named(String text, Set<String> all) {
        Set<String> named = new LinkedHashSet<>();
        for (String item : all) {
            if (contains(text, item)) {
                named.add(item);
            }
        }
        return named;
    }

    static boolean contains(String text, String word) {
        return Pattern.compile("(?<![A-Za-z0-9.-])" + Pattern.quote(word) + "(?![A-Za-z0-9-])")
                .matcher(text)
                .find();
    }

    private static String section(String xml, String element) {
        int start = xml.indexOf("<" + element + ">");
        int end = xml.indexOf("</" + element + ">");
        return start < 0 || end < start ? "" : xml.substring(start, end);
    }

    private static List<String> elements(String xml, String element) {
        List<String> values = new ArrayList<>();
        Matcher m = Pattern.compile("<" + element + ">\\s*([^<\\s]+)\\s*</" + element + ">")
                .matcher(xml);
        while (m.find()) {
            values.add(m.group(1));
        }
        return values;
    }
}
