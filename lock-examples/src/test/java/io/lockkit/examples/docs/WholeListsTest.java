package io.lockkit.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.examples.docs.WholeLists.Unit;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The documentation's lists stay whole: a list of modules names every published module, a list of
 * backends every backend the contract runs on, and RELEASING's promise every exported package. The
 * truth is read from the POMs and the tests (see {@link WholeLists}); the changelog, a record of
 * the past, is not checked.
 */
@DisplayName("the documentation's lists")
class WholeListsTest {

    private static final Path ROOT = Documentation.root();

    private static Set<String> modules() {
        return WholeLists.publishedModules(Documentation.read(ROOT.resolve("pom.xml")));
    }

    private static Set<String> backends() {
        return WholeLists.testedBackends(WholeLists.contractSources(ROOT));
    }

    private static List<Unit> allUnits() {
        List<Unit> units = new ArrayList<>();
        for (Path page : Documentation.markdownFiles(ROOT)) {
            if (!page.getFileName().toString().equals("CHANGELOG.md")) {
                units.addAll(WholeLists.units(ROOT.relativize(page), Documentation.read(page)));
            }
        }
        return units;
    }

    /** What each unit that is a list of modules or backends leaves out, one line per unit. */
    static List<String> gaps(List<Unit> units, Set<String> modules, Set<String> backends) {
        List<String> gaps = new ArrayList<>();
        for (Unit unit : units) {
            Set<String> missing = new LinkedHashSet<>();
            if (unit.kind().equals("modules")) {
                missing.addAll(missing(unit.text(), modules));
            } else if (unit.kind().equals("backends")) {
                missing.addAll(missing(unit.text(), backends));
            } else if (unit.kind().isEmpty() && !unit.text().contains(WholeLists.PARTIAL)) {
                if (WholeLists.named(unit.text(), modules).size() >= WholeLists.MODULE_LIST_SIZE) {
                    missing.addAll(missing(unit.text(), modules));
                }
                for (List<String> group : WholeLists.BACKEND_GROUPS) {
                    Set<String> tested = new LinkedHashSet<>(group);
                    tested.retainAll(backends);
                    if (WholeLists.named(unit.text(), tested).size() >= 2) {
                        missing.addAll(missing(unit.text(), tested));
                    }
                }
            }
            if (!missing.isEmpty()) {
                gaps.add(unit.file() + ":" + unit.line() + " lists "
                        + (unit.kind().isEmpty() ? "" : unit.kind() + " ") + "but leaves out " + missing + ": "
                        + abbreviate(unit.text()));
            }
        }
        return gaps;
    }

    private static Set<String> missing(String text, Set<String> all) {
        Set<String> missing = new LinkedHashSet<>(all);
        missing.removeAll(WholeLists.named(text, all));
        return missing;
    }

    private static String abbreviate(String text) {
        String line = text.replaceAll("\\s+", " ").strip();
        return line.length() <= 160 ? line : line.substring(0, 157) + "...";
    }

    @Test
    @DisplayName("the truth is read from the build: the published modules and the backends the contract runs on")
    void truthIsRead() {
        assertThat(modules())
                .contains("lock-bom", "lock-api", "lock-jedis", "lock-jdbc", "lock-cdi")
                .doesNotContain("lock-examples", "lock-cli", "lock-benchmarks", "lock-jakarta-it");
        assertThat(backends()).contains("standalone", "Sentinel", "Cluster", "PostgreSQL", "H2");
    }

    @Test
    @DisplayName("every list of modules names every published module, and every list of backends every tested backend")
    void listsAreWhole() {
        assertThat(gaps(allUnits(), modules(), backends())).isEmpty();
    }

    @Test
    @DisplayName("the README and RELEASING keep their marked module lists, so the check above cannot lose them")
    void markedListsExist() {
        for (String page : List.of("README.md", "RELEASING.md")) {
            assertThat(WholeLists.units(Path.of(page), Documentation.read(ROOT.resolve(page))))
                    .as(page + "'s list of modules")
                    .anyMatch(u -> u.kind().equals("modules"));
        }
    }

    @Test
    @DisplayName("RELEASING's promise names every exported package of a published module, as covered or not")
    void promiseNamesEveryPackage() {
        String releasing = Documentation.read(ROOT.resolve("RELEASING.md"));
        StringBuilder marked = new StringBuilder();
        WholeLists.units(Path.of("RELEASING.md"), releasing).stream()
                .filter(u -> u.kind().equals("packages"))
                .forEach(u -> marked.append(u.text()));
        Set<String> packages = WholeLists.exportedPackages(ROOT, modules());
        assertThat(packages).contains("io.lockkit", "io.lockkit.spi", "io.lockkit.cdi.spi");
        assertThat(missing(marked.toString(), packages))
                .as("packages RELEASING's marked lists leave out")
                .isEmpty();
    }

    /** The check itself, on small texts: each rule must be able to fail. */
    @Nested
    @DisplayName("its checker")
    class Checker {

        private final Path page = Path.of("page.md");
        private final Set<String> modules = Set.of("lock-a", "lock-b", "lock-c");
        private final Set<String> backends = Set.of("Sentinel", "Cluster", "standalone", "PostgreSQL", "MariaDB", "H2");

        @Test
        @DisplayName("reads the published modules from the modules less the release profile's excluded artifacts")
        void readsPublishedModules() {
            String pom = "<modules><module>lock-a</module><module>lock-demo</module></modules>"
                    + "<excludeArtifacts><artifact>lock-demo</artifact></excludeArtifacts>";
            assertThat(WholeLists.publishedModules(pom)).containsExactly("lock-a");
        }

        @Test
        @DisplayName("reads the backends from the contract runs' display names, and rejects a run on an unknown one")
        void readsBackends() {
            assertThat(WholeLists.testedBackends(Map.of(
                            "A", "@DisplayName(\"P on a 3-master Redis Cluster\")",
                            "B", "@DisplayName(\"P on MariaDB\")")))
                    .containsExactly("Cluster", "MariaDB");
            assertThatThrownBy(() -> WholeLists.testedBackends(Map.of("C", "@DisplayName(\"P on Oracle\")")))
                    .hasMessageContaining("C runs the contract on \"Oracle\"");
        }

        @Test
        @DisplayName("a marked list that leaves out a module fails, naming the page, line and module")
        void markedListMustBeWhole() {
            String text = "intro\n\n<!-- whole-list:modules -->\n- `lock-a`\n- `lock-c`\n<!-- end-list -->\n";
            assertThat(gaps(WholeLists.units(page, text), modules, backends))
                    .singleElement()
                    .asString()
                    .contains("page.md:3 lists modules but leaves out [lock-b]");
            assertThat(gaps(WholeLists.units(page, text.replace("`lock-c`", "`lock-b`, `lock-c`")), modules, backends))
                    .isEmpty();
        }

        @Test
        @DisplayName("a paragraph or list item naming two databases must name the third; one naming one need not")
        void unitsNamingSeveralMustNameAll() {
            String text = "It runs on PostgreSQL or H2.\nOn PostgreSQL it listens.\n\n- MariaDB and H2\n- PostgreSQL\n";
            assertThat(gaps(WholeLists.units(page, text), modules, backends))
                    .containsExactly(
                            "page.md:1 lists but leaves out [MariaDB]: It runs on PostgreSQL or H2. On PostgreSQL it listens.",
                            "page.md:4 lists but leaves out [PostgreSQL]: - MariaDB and H2");
            String excused = text.replace("or H2.", "or H2. " + WholeLists.PARTIAL)
                    .replace("- MariaDB", "- MariaDB, PostgreSQL");
            assertThat(gaps(WholeLists.units(page, excused), modules, backends)).isEmpty();
        }

        @Test
        @DisplayName("a table is one unit, and code blocks are not read")
        void tablesAreOneUnitAndCodeIsSkipped() {
            String table = "| a | b |\n|---|---|\n| Sentinel | x |\n| Cluster | y |\n";
            assertThat(gaps(WholeLists.units(page, table), modules, backends))
                    .singleElement()
                    .asString()
                    .contains("leaves out [standalone]");
            assertThat(gaps(WholeLists.units(page, "```\nSentinel and Cluster\n```\n"), modules, backends))
                    .isEmpty();
        }

        @Test
        @DisplayName("a marked list without its end is an error naming the page and line")
        void unclosedMarkIsAnError() {
            assertThatThrownBy(() -> WholeLists.units(page, "x\n<!-- whole-list:modules -->\n- `lock-a`\n"))
                    .hasMessageContaining("page.md:2")
                    .hasMessageContaining("<!-- end-list -->");
        }
    }
}
