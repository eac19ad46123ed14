package io.lockkit.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.examples.docs.Documentation.Block;
import io.lockkit.examples.docs.Documentation.Link;
import io.lockkit.examples.docs.Documentation.Region;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The documentation cannot drift from the code: every Java snippet of a page is a region of a
 * compiled source (which a test runs), every relative link leads somewhere, every test a page names
 * exists, and the README stays a front page.
 */
@DisplayName("the documentation")
class DocumentationTest {

    private static final Path ROOT = Documentation.root();

    /** A test class named in backticks, possibly with a method: {@code `FooTest`}, {@code `FooIT.bar`}. */
    private static final Pattern TEST_NAME =
            Pattern.compile("`([A-Z][a-z0-9][A-Za-z0-9]*(?:Test|IT))(?:\\.java|[.#]([a-z][A-Za-z0-9]*))?`");

    private static List<Region> allRegions() {
        List<Region> regions = new ArrayList<>();
        for (Path source : Documentation.javaSources(ROOT)) {
            regions.addAll(Documentation.regions(source, Documentation.read(source)));
        }
        return regions;
    }

    private static List<Block> javaBlocks() {
        List<Block> blocks = new ArrayList<>();
        for (Path page : Documentation.markdownFiles(ROOT)) {
            Documentation.blocks(page, Documentation.read(page)).stream()
                    .filter(b -> b.language().equals("java"))
                    .forEach(blocks::add);
        }
        return blocks;
    }

    /** The blocks that are no region's text, each with the region it resembles most, if any. */
    static List<String> unmatched(List<Block> blocks, List<Region> regions) {
        Set<String> texts = regions.stream().map(Region::text).collect(Collectors.toSet());
        List<String> problems = new ArrayList<>();
        for (Block block : blocks) {
            if (!texts.contains(block.text())) {
                String firstLine = block.text().lines().findFirst().orElse("");
                String near = regions.stream()
                        .filter(r -> r.text().lines().findFirst().orElse("").equals(firstLine))
                        .map(Region::toString)
                        .collect(Collectors.joining(", "));
                problems.add(block + " is in no snippet region"
                        + (near.isEmpty() ? "" : " (its first line starts " + near + ", which differs)")
                        + ":\n" + block.text());
            }
        }
        return problems;
    }

    @Test
    @DisplayName("every ```java block of a page is, verbatim, a snippet region of a source compiled by the build")
    void everyJavaBlockIsCompiled() {
        List<Block> blocks = javaBlocks();
        assertThat(blocks).as("the pages show Java").hasSizeGreaterThan(20);
        assertThat(unmatched(blocks, allRegions())).isEmpty();
    }

    @Test
    @DisplayName("every snippet region is shown on some page (a region nobody shows is a page that lost its snippet)")
    void everyRegionIsShown() {
        Set<String> shown = javaBlocks().stream().map(Block::text).collect(Collectors.toSet());
        assertThat(allRegions())
                .filteredOn(r -> !shown.contains(r.text()))
                .as("regions no page shows")
                .isEmpty();
    }

    @Test
    @DisplayName("every relative link leads to a file of the repository, and every anchor to a heading of it")
    void linksResolve() {
        List<String> broken = new ArrayList<>();
        Map<Path, Set<String>> anchors = new HashMap<>();
        for (Path page : Documentation.markdownFiles(ROOT)) {
            for (Link link : Documentation.links(page, Documentation.read(page))) {
                Path target = link.target().isEmpty()
                        ? page
                        : page.getParent().resolve(link.target()).normalize();
                String where = ROOT.relativize(page) + ":" + link.line() + " ";
                if (!target.startsWith(ROOT) || !Files.exists(target)) {
                    broken.add(where + "links to " + link.target() + ", which does not exist");
                } else if (!link.anchor().isEmpty() && target.toString().endsWith(".md")) {
                    Set<String> known =
                            anchors.computeIfAbsent(target, t -> Documentation.anchors(Documentation.read(t)));
                    if (!known.contains(link.anchor())) {
                        broken.add(where + "links to #" + link.anchor() + " of " + ROOT.relativize(target)
                                + ", which has no such heading");
                    }
                }
            }
        }
        assertThat(broken).isEmpty();
    }

    @Test
    @DisplayName("every test class (and method) a page names exists")
    void namedTestsExist() {
        Map<String, Path> sources = new HashMap<>();
        for (Path source : Documentation.javaSources(ROOT)) {
            String file = source.getFileName().toString();
            sources.put(file.substring(0, file.length() - ".java".length()), source);
        }
        List<String> missing = new ArrayList<>();
        Set<String> named = new HashSet<>();
        for (Path page : Documentation.markdownFiles(ROOT)) {
            Matcher name = TEST_NAME.matcher(Documentation.read(page));
            while (name.find()) {
                named.add(name.group(1));
                Path source = sources.get(name.group(1));
                if (source == null) {
                    missing.add(ROOT.relativize(page) + " names " + name.group(1) + ", which no module has");
                } else if (name.group(2) != null && !Documentation.read(source).contains(" " + name.group(2) + "(")) {
                    missing.add(ROOT.relativize(page) + " names " + name.group(0) + ", but " + name.group(1)
                            + " has no method " + name.group(2));
                }
            }
        }
        assertThat(named).as("the pages name the tests behind their claims").hasSizeGreaterThan(30);
        assertThat(missing).isEmpty();
    }

    @Test
    @DisplayName("the README is a front page: at most 350 lines")
    void readmeIsShort() {
        assertThat(Documentation.read(ROOT.resolve("README.md")).lines().count())
                .isLessThanOrEqualTo(350);
    }

    /** The checks themselves, on small texts: each must be able to fail. */
    @Nested
    @DisplayName("its checker")
    class Checker {

        private final Path page = Path.of("page.md");
        private final Path source = Path.of("Source.java");

        private final String java = String.join(
                "\n",
                "class Source {",
                "    void run() {",
                "        // guide:run-begin",
                "        try (LockHandle hold = locks.acquire(\"a\")) {",
                "            work(hold.fencingToken());",
                "        }",
                "        // guide:run-end",
                "    }",
                "}");

        @Test
        @DisplayName("a block equal to a region, indentation aside, matches; one changed character does not")
        void matchesVerbatimOnly() {
            List<Region> regions = Documentation.regions(source, java);
            String same =
                    "```java\ntry (LockHandle hold = locks.acquire(\"a\")) {\n    work(hold.fencingToken());\n}\n```\n";
            String drifted = same.replace("fencingToken", "token");
            assertThat(unmatched(Documentation.blocks(page, same), regions)).isEmpty();
            assertThat(unmatched(Documentation.blocks(page, drifted), regions))
                    .singleElement()
                    .asString()
                    .contains("page.md:1", "Source.java:3 (guide:run)");
        }

        @Test
        @DisplayName("markers of nested regions are left out of the outer region's text")
        void nestedMarkersAreLeftOut() {
            String nested = java.replace("// guide:run-begin", "// guide:run-begin\n        // guide:inner-begin")
                    .replace("// guide:run-end", "// guide:inner-end\n        // guide:run-end");
            List<Region> regions = Documentation.regions(source, nested);
            assertThat(regions).hasSize(2);
            assertThat(regions.get(0).text()).isEqualTo(regions.get(1).text()).doesNotContain("//");
        }

        @Test
        @DisplayName("a region without its end marker is an error naming the file and line")
        void unclosedRegionIsAnError() {
            String unclosed = java.replace("        // guide:run-end\n", "");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> Documentation.regions(source, unclosed))
                    .hasMessageContaining("Source.java:3")
                    .hasMessageContaining("// guide:run-end");
        }

        @Test
        @DisplayName("links outside code are found with their anchors; links in code are not")
        void findsLinks() {
            String markdown = String.join(
                    "\n",
                    "See [the guide](docs/README.md#the-guide) and [Maven](https://maven.apache.org).",
                    "`[not a link](nowhere.md)`",
                    "```",
                    "[also not](nowhere.md)",
                    "```",
                    "[here](#a-heading)");
            assertThat(Documentation.links(page, markdown))
                    .extracting(Link::target, Link::anchor)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("docs/README.md", "the-guide"),
                            org.assertj.core.groups.Tuple.tuple("", "a-heading"));
        }

        @Test
        @DisplayName("headings get GitHub's anchors")
        void anchorsAreGitHubs() {
            assertThat(Documentation.anchors("# The guide\n## Redis: `rediss://` & TLS\n## The guide\n"))
                    .containsExactly("the-guide", "redis-rediss--tls", "the-guide-1");
        }
    }
}
