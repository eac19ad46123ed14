package io.lockkit.cli;

import static io.lockkit.cli.CliSupport.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.LockInfo;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Output formats without Redis: JSON escaping read back strictly, terminal-safe names, durations, the streaming table. */
@DisplayName("lockkit CLI output formats")
class RenderTest {

    private static final String NASTY = "a\"b\\c\nd\te\u0000f\u001b[31mred\u2028g\u00e9\ud83d\udd12";

    @Test
    @DisplayName(
            "JSON strings survive quotes, backslashes, control characters and non-ASCII, read back by a strict parser")
    void jsonEscapesEverything() {
        String doc = Render.string(new StringBuilder(), NASTY).toString();
        assertThat(json(doc).getAsString()).isEqualTo(NASTY);
        assertThat(doc).doesNotContain("\n", "\u001b", "\u0000");
    }

    @Test
    @DisplayName("a lock in JSON: none-values are null (no token, waiters unknown); in a table - and ?")
    void lockJsonUsesNullForNone() {
        LockInfo none = new LockInfo(NASTY, "client:h7", "client", 1, 0, Duration.ofMillis(250), -1);
        var o = json(Render.json(new StringBuilder(), none, true).toString()).getAsJsonObject();
        assertThat(o.get("name").getAsString()).isEqualTo(NASTY);
        assertThat(o.get("held").getAsBoolean()).isTrue();
        assertThat(o.get("fencingToken").isJsonNull()).isTrue();
        assertThat(o.get("owner").getAsString()).isEqualTo("client:h7");
        assertThat(o.get("clientId").getAsString()).isEqualTo("client");
        assertThat(o.get("leaseLeftMillis").getAsLong()).isEqualTo(250);
        assertThat(o.get("waiters").isJsonNull()).isTrue();
        LockInfo some = new LockInfo("n", "c:t1", "c", 2, 17, Duration.ofMillis(1500), 3);
        var p = json(Render.json(new StringBuilder(), some, false).toString()).getAsJsonObject();
        assertThat(p.has("held")).isFalse();
        assertThat(p.get("fencingToken").getAsLong()).isEqualTo(17);
        assertThat(p.get("leaseLeftMillis").getAsLong()).isEqualTo(1500);
        assertThat(p.get("waiters").getAsInt()).isEqualTo(3);
        assertThat(Render.cells(none)).containsExactly(Render.printable(NASTY), "h7", "client", "1", "-", "250ms", "?");
    }

    @Test
    @DisplayName("a semaphore's name: its holders and permits against the capacity, in the table, in show and in JSON")
    void sharedNamesShowHoldersAndPermits() {
        List<LockInfo.Holder> holders =
                List.of(new LockInfo.Holder("a:h1", true, 3, 1), new LockInfo.Holder("b:h4", true, 1, 2));
        LockInfo sem = new LockInfo("jobs", "a:h1", "a", 1, 9, Duration.ofSeconds(2), -1, holders, 5);
        assertThat(Render.cells(sem)).containsExactly("jobs", "2 shared, 4/5 permits", "", "", "9", "2.0s", "?");
        StringWriter shown = new StringWriter();
        ShowCommand.describe(new PrintWriter(shown), sem);
        assertThat(shown.toString())
                .contains("holder:         2 shared, 4/5 permits\nfencing token:  9")
                .contains("  holder a:h1: 3 permits, hold count 1")
                .contains("  holder b:h4: 1 permit, hold count 2");
        var o = json(Render.json(new StringBuilder(), sem, false).toString()).getAsJsonObject();
        assertThat(o.get("mode").getAsString()).isEqualTo("shared");
        assertThat(o.get("capacity").getAsInt()).isEqualTo(5);
        assertThat(o.get("permitsHeld").getAsInt()).isEqualTo(4);
        assertThat(o.getAsJsonArray("holders")).hasSize(2);
        assertThat(o.getAsJsonArray("holders")
                        .get(1)
                        .getAsJsonObject()
                        .get("holdCount")
                        .getAsInt())
                .isEqualTo(2);

        LockInfo readers = new LockInfo(
                "cfg",
                "a:t1r",
                "a",
                1,
                4,
                Duration.ofSeconds(2),
                0,
                List.of(new LockInfo.Holder("a:t1r", true, 1, 1)),
                -1);
        assertThat(Render.cells(readers)[1]).isEqualTo("1 reader");
        assertThat(json(Render.json(new StringBuilder(), readers, false).toString())
                        .getAsJsonObject()
                        .get("capacity")
                        .isJsonNull())
                .isTrue();
    }

    @Test
    @DisplayName("tokens past 2^53 and up to 2^63 - 1 read exactly in JSON and in a table (never through a double)")
    void largeTokensStayExact() {
        for (long token : new long[] {(1L << 53) + 1, Long.MAX_VALUE}) {
            LockInfo lock = new LockInfo("n", "c:t1", "c", 1, token, Duration.ofSeconds(1), -1);
            String doc = Render.json(new StringBuilder(), lock, false).toString();
            assertThat(doc).contains("\"fencingToken\":" + token + ",");
            assertThat(json(doc).getAsJsonObject().get("fencingToken").getAsBigInteger())
                    .isEqualTo(java.math.BigInteger.valueOf(token));
            assertThat(Render.cells(lock)[4]).isEqualTo(Long.toString(token));
        }
    }

    @Test
    @DisplayName("names in tables cannot drive the terminal: control characters are shown escaped")
    void tableCellsAreTerminalSafe() {
        assertThat(Render.printable("plain:name")).isEqualTo("plain:name");
        assertThat(Render.printable("x\u001b[2Jy\nz\u0085"))
                .isEqualTo("x\\x1b[2Jy\\x0az\\x85")
                .doesNotContain("\u001b");
        assertThat(Render.printable("p\u2028")).isEqualTo("p\\u2028");
    }

    @Test
    @DisplayName("lease left reads as ms, seconds with a tenth, minutes and hours")
    void leaseReadsForHumans() {
        assertThat(Render.lease(Duration.ofMillis(850))).isEqualTo("850ms");
        assertThat(Render.lease(Duration.ofMillis(12_345))).isEqualTo("12.3s");
        assertThat(Render.lease(Duration.ofSeconds(245))).isEqualTo("4m05s");
        assertThat(Render.lease(Duration.ofMinutes(123))).isEqualTo("2h03m");
        assertThat(Render.lease(Duration.ZERO)).isEqualTo("0ms");
    }

    @Test
    @DisplayName(
            "the table aligns columns from the first rows and lets a later, wider value overflow instead of cutting it")
    void tableAlignsAndOverflows() {
        StringWriter text = new StringWriter();
        Table table = new Table(new PrintWriter(text), List.of("NAME", "N"), new boolean[] {false, true});
        table.add(new String[] {"short", "1"});
        table.add(new String[] {"longer-name", "22"});
        table.finish();
        assertThat(text.toString().lines()).containsExactly("NAME          N", "short         1", "longer-name  22");

        StringWriter many = new StringWriter();
        Table big = new Table(new PrintWriter(many), List.of("NAME", "N"), new boolean[] {false, true});
        for (int i = 0; i < Table.SAMPLE + 10; i++) {
            big.add(new String[] {"n" + i, "1"});
        }
        big.add(new String[] {"x".repeat(80), "1"});
        big.finish();
        assertThat(big.rows()).isEqualTo(Table.SAMPLE + 11);
        assertThat(many.toString().lines())
                .hasSize(Table.SAMPLE + 12)
                .last()
                .asString()
                .startsWith("x".repeat(80) + "  ");
    }

    @Test
    @DisplayName("durations: 250ms, 2s, 1m, 1h and ISO-8601; zero, negative and words are refused")
    void durationsParse() {
        DurationConverter c = new DurationConverter();
        assertThat(c.convert("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(c.convert("2s")).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.convert("1m")).isEqualTo(Duration.ofMinutes(1));
        assertThat(c.convert("1H")).isEqualTo(Duration.ofHours(1));
        assertThat(c.convert("PT1.5S")).isEqualTo(Duration.ofMillis(1500));
        for (String bad : List.of("0s", "PT-1S", "soon", "")) {
            assertThatThrownBy(() -> c.convert(bad))
                    .isInstanceOf(CommandLine.TypeConversionException.class)
                    .hasMessageContaining("'" + bad + "'");
        }
    }
}
