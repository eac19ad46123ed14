package io.lockkit.jedis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Holds each Lua script and its Java class to one contract: the {@code -- KEYS[n] name} and
 * {@code -- ARGV[n] name} lines of the script's header, the named locals the script unpacks its
 * {@code KEYS} and {@code ARGV} into (and it reads them nowhere else), the key and argument
 * names of the Java class, and the number of values the Java class sends. An argument added,
 * removed or moved on one side only fails here.
 */
class ScriptContractTest {

    private static final Pattern HEADER_FIXED = Pattern.compile("^-- (KEYS|ARGV)\\[(\\d+)] (\\w+)", Pattern.MULTILINE);
    private static final Pattern HEADER_PER_HOLD =
            Pattern.compile("^-- (KEYS|ARGV)\\[(\\d*)i(?:-(\\d+))?] (\\w+)", Pattern.MULTILINE);
    private static final Pattern UNPACK =
            Pattern.compile("local\\s+([\\w\\s,]+?)\\s*=\\s*((?:(?:KEYS|ARGV)\\[[^\\]]+]\\s*,?\\s*)+)");
    private static final Pattern REFERENCE = Pattern.compile("(KEYS|ARGV)\\[([^\\]]+)]");

    @Test
    @DisplayName("acquire.lua and AcquireScript agree on every key and argument, by position and name")
    void acquireScriptMatchesItsLua() throws IOException {
        Script lua = Script.read("acquire.lua");
        assertThat(lua.header("KEYS")).isEqualTo(AcquireScript.KEYS);
        assertThat(lua.header("ARGV")).isEqualTo(AcquireScript.Args.names());
        assertThat(lua.unpacked("KEYS")).isEqualTo(AcquireScript.KEYS);
        assertThat(lua.unpacked("ARGV")).isEqualTo(AcquireScript.Args.names());
        AcquireScript.Args args = new AcquireScript.Args(
                "c:o", Duration.ofSeconds(30), Duration.ZERO, Duration.ofSeconds(2), false, 0, false);
        assertThat(args.encode()).hasSize(lua.header("ARGV").size());
    }

    @Test
    @DisplayName("shared.lua and SharedScript agree on every key and argument, by position and name")
    void sharedScriptMatchesItsLua() throws IOException {
        Script lua = Script.read("shared.lua");
        assertThat(lua.header("KEYS")).isEqualTo(SharedScript.KEYS);
        assertThat(lua.header("ARGV")).isEqualTo(SharedScript.Args.names());
        assertThat(lua.unpacked("KEYS")).isEqualTo(SharedScript.KEYS);
        assertThat(lua.unpacked("ARGV")).isEqualTo(SharedScript.Args.names());
        SharedScript.Args args = new SharedScript.Args(
                "c:o", Duration.ofSeconds(30), Duration.ZERO, Duration.ofSeconds(2), 0, 1, 3, false, "");
        assertThat(args.encode()).hasSize(lua.header("ARGV").size());
        assertThat(Keys.shared(new Keys("lockkit").base("n")))
                .as("shared.lua's keys, as the provider sends them")
                .hasSize(SharedScript.KEYS.size())
                .allSatisfy(key -> assertThat(key).startsWith("lockkit:{n}"));
    }

    @Test
    @DisplayName("capacity.lua and CapacityScript agree on every key and argument, by position and name")
    void capacityScriptMatchesItsLua() throws IOException {
        Script lua = Script.read("capacity.lua");
        assertThat(lua.header("KEYS")).isEqualTo(CapacityScript.KEYS);
        assertThat(lua.header("ARGV")).isEqualTo(CapacityScript.Args.names());
        assertThat(lua.unpacked("KEYS")).isEqualTo(CapacityScript.KEYS);
        assertThat(lua.unpacked("ARGV")).isEqualTo(CapacityScript.Args.names());
        assertThat(new CapacityScript.Args(3, "lockkit:{n}:c", "PUBLISH").encode())
                .hasSize(lua.header("ARGV").size());
        assertThat(Arg.texts(CapacityScript.keys(new Keys("lockkit").base("n"))))
                .containsExactly("lockkit:{n}", "lockkit:{n}:cap");
    }

    @Test
    @DisplayName("release.lua and ReleaseScript agree on every key and argument, by position and name")
    void releaseScriptMatchesItsLua() throws IOException {
        Script lua = Script.read("release.lua");
        assertThat(lua.header("KEYS")).isEqualTo(ReleaseScript.KEYS);
        assertThat(lua.header("ARGV")).isEqualTo(ReleaseScript.Args.names());
        assertThat(lua.unpacked("KEYS")).isEqualTo(ReleaseScript.KEYS);
        assertThat(lua.unpacked("ARGV")).isEqualTo(ReleaseScript.Args.names());
        ReleaseScript.Args args = new ReleaseScript.Args(
                "c:o",
                ReleaseScript.Mode.RELEASE,
                Duration.ofSeconds(2),
                Duration.ofSeconds(60),
                Arg.of("lockkit:{n}:c"),
                "PUBLISH",
                Arg.of("c:"),
                8,
                Arg.of("nonce"),
                0);
        assertThat(args.encode()).hasSize(lua.header("ARGV").size());
        for (ReleaseScript.Mode mode : ReleaseScript.Mode.values()) {
            assertThat(lua.code).as("release.lua handles mode %s", mode).contains("'" + mode.wire() + "'");
        }
    }

    @Test
    @DisplayName("inspect.lua and InspectScript agree: the four keys of a shared name, no argument")
    void inspectScriptMatchesItsLua() throws IOException {
        Script lua = Script.read("inspect.lua");
        assertThat(lua.header("KEYS")).isEqualTo(InspectScript.KEYS);
        assertThat(lua.header("ARGV")).isEqualTo(InspectScript.Args.names()).isEmpty();
        assertThat(lua.unpacked("KEYS")).isEqualTo(InspectScript.KEYS);
        assertThat(lua.unpacked("ARGV")).isEmpty();
        assertThat(new InspectScript.Args().encode()).isEmpty();
    }

    @Test
    @DisplayName("renew.lua and RenewScript agree on the key and the arguments of each hold, by position and name")
    void renewScriptMatchesItsLua() throws IOException {
        Script lua = Script.read("renew.lua");
        List<String[]> perHold = lua.perHoldHeader();
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        int stride = RenewScript.Hold.names().size();
        for (String[] h : perHold) {
            int coefficient = h[1].isEmpty() ? 1 : Integer.parseInt(h[1]);
            int offset = h[2] == null ? 0 : Integer.parseInt(h[2]);
            if (h[0].equals("KEYS")) {
                assertThat(coefficient).as("KEYS per hold").isEqualTo(RenewScript.KEYS_PER_HOLD.size());
                keys.add(h[3]);
            } else {
                assertThat(coefficient)
                        .as("ARGV per hold in renew.lua's header")
                        .isEqualTo(stride);
                assertThat(offset)
                        .as("ARGV[%si-%s] %s: its position in the hold", h[1], h[2], h[3])
                        .isEqualTo(stride - 1 - args.size());
                args.add(h[3]);
            }
        }
        assertThat(keys).isEqualTo(RenewScript.KEYS_PER_HOLD);
        assertThat(args).isEqualTo(RenewScript.Hold.names());
        List<String> unpacked = lua.unpackedNames();
        assertThat(unpacked).isEqualTo(concat(RenewScript.KEYS_PER_HOLD, RenewScript.Hold.names()));
        assertThat(RenewScript.encode(List.of(
                        new RenewScript.Hold("c:o", Duration.ofSeconds(30)),
                        new RenewScript.Hold("c:p", Duration.ofSeconds(30)))))
                .hasSize(2 * stride);
    }

    @Test
    @DisplayName(
            "acquire.lua, release.lua and shared.lua draw fencing tokens with the same functions (Redis scripts cannot share code)")
    void acquireAndReleaseDrawTokensAlike() throws IOException {
        String acquire = tokenFunctions(Script.read("acquire.lua"));
        assertThat(acquire).contains("local function nextToken(last, time)");
        assertThat(tokenFunctions(Script.read("release.lua"))).isEqualTo(acquire);
        assertThat(tokenFunctions(Script.read("shared.lua"))).isEqualTo(acquire);
    }

    /** The code from {@code greaterDigits} to the end of {@code nextToken}, comments removed. */
    private static String tokenFunctions(Script lua) {
        int start = lua.code.indexOf("local function greaterDigits(");
        int next = lua.code.indexOf("local function nextToken(", start);
        assertThat(start).as("%s: greaterDigits", lua.name).isNotNegative();
        assertThat(next).as("%s: nextToken after greaterDigits", lua.name).isPositive();
        return lua.code.substring(start, lua.code.indexOf("\nend\n", next) + 5);
    }

    @Test
    @DisplayName("every script has its class: the contract above covers all of Scripts")
    void everyScriptIsCovered() {
        assertThat(Scripts.values())
                .extracting(Enum::name)
                .containsExactlyInAnyOrder("ACQUIRE", "RELEASE", "RENEW", "INSPECT", "SHARED", "CAPACITY");
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** A script's header (its leading comment lines) and code (the rest, comments removed). */
    private record Script(String name, String header, String code) {

        static Script read(String resource) throws IOException {
            String text;
            try (InputStream in = Scripts.class.getResourceAsStream(resource)) {
                assertThat(in).as(resource).isNotNull();
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            StringBuilder header = new StringBuilder();
            StringBuilder code = new StringBuilder();
            boolean inHeader = true;
            for (String line : text.split("\n", -1)) {
                inHeader &= line.startsWith("--");
                if (inHeader) {
                    header.append(line).append('\n');
                } else {
                    int comment = line.indexOf("--");
                    code.append(comment < 0 ? line : line.substring(0, comment)).append('\n');
                }
            }
            return new Script(resource, header.toString(), code.toString());
        }

        /** The names the header gives {@code KEYS[1..n]} or {@code ARGV[1..n]}, checked to be numbered 1..n in order. */
        List<String> header(String table) {
            List<String> names = new ArrayList<>();
            Matcher m = HEADER_FIXED.matcher(header);
            while (m.find()) {
                if (m.group(1).equals(table)) {
                    assertThat(Integer.parseInt(m.group(2)))
                            .as("%s: %s[%s] %s is numbered in order", name, table, m.group(2), m.group(3))
                            .isEqualTo(names.size() + 1);
                    names.add(m.group(3));
                }
            }
            return names;
        }

        /** {@code {table, coefficient, offset, name}} of each {@code -- KEYS[i] x} / {@code -- ARGV[2i-1] y} line. */
        List<String[]> perHoldHeader() {
            List<String[]> lines = new ArrayList<>();
            Matcher m = HEADER_PER_HOLD.matcher(header);
            while (m.find()) {
                lines.add(new String[] {m.group(1), m.group(2), m.group(3), m.group(4)});
            }
            assertThat(lines).as("%s: per-hold header lines", name).isNotEmpty();
            return lines;
        }

        /**
         * The locals that {@code table[1..n]} is unpacked into, in index order; checked that the
         * code reads {@code table} nowhere else.
         */
        List<String> unpacked(String table) {
            List<String> names = new ArrayList<>();
            int unpackedReferences = 0;
            Matcher m = UNPACK.matcher(code);
            while (m.find()) {
                String[] locals = m.group(1).trim().split("\\s*,\\s*");
                Matcher r = REFERENCE.matcher(m.group(2));
                for (int i = 0; r.find(); i++) {
                    if (r.group(1).equals(table)) {
                        assertThat(r.group(2))
                                .as("%s: %s[%s] unpacked in order", name, table, r.group(2))
                                .isEqualTo(Integer.toString(names.size() + 1));
                        names.add(locals[i]);
                        unpackedReferences++;
                    }
                }
            }
            assertThat(references(table))
                    .as("%s: %s is read only where it is unpacked into named locals", name, table)
                    .isEqualTo(unpackedReferences);
            return names;
        }

        /** The locals of the one statement that unpacks a hold's keys and arguments. */
        List<String> unpackedNames() {
            Matcher m = UNPACK.matcher(code);
            assertThat(m.find())
                    .as("%s unpacks KEYS and ARGV into locals", name)
                    .isTrue();
            List<String> locals = List.of(m.group(1).trim().split("\\s*,\\s*"));
            Matcher r = REFERENCE.matcher(m.group(2));
            int count = 0;
            while (r.find()) {
                count++;
            }
            assertThat(count).as("%s: values unpacked", name).isEqualTo(locals.size());
            assertThat(references("KEYS") + references("ARGV"))
                    .as("%s reads KEYS and ARGV only where it unpacks them", name)
                    .isEqualTo(count);
            return locals;
        }

        private int references(String table) {
            int n = 0;
            Matcher r = REFERENCE.matcher(code);
            while (r.find()) {
                n += r.group(1).equals(table) ? 1 : 0;
            }
            return n;
        }
    }
}
