package io.lockkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Holds every dialect's SQL and the statement classes to one contract, without a database: each
 * dialect defines exactly the statements of the classes (all of them where it queues waiters); the
 * {@code :parameters} of a statement, plus the components the dialect declares unused, are exactly
 * its argument record's components; a statement that calls a routine of the migrations passes its
 * parameters in the routine's order and names ({@code :maxWait} is {@code p_max_wait}), and selects
 * the routine's OUT names, which are the class's reply columns; the columns of the other statements
 * are the class's too; the release routine answers only the outcome words of
 * {@link ReleaseStatement#OUTCOMES}, all of them; and every notification payload a routine or
 * statement builds is one of {@link NotifyPayload}'s forms. A parameter added, removed, renamed or
 * moved on one side only fails here.
 */
class SqlContractTest {

    private static final Map<String, Class<? extends Record>> ARGS = new LinkedHashMap<>();

    static {
        ARGS.put(AcquireStatement.NAME, AcquireStatement.Args.class);
        ARGS.put(ReleaseStatement.NAME, ReleaseStatement.Args.class);
        ARGS.put(AbandonStatement.NAME, AbandonStatement.Args.class);
        ARGS.put(RenewStatement.NAME, RenewStatement.Hold.class);
        ARGS.put(ForceReleaseStatement.NAME, ForceReleaseStatement.Args.class);
        ARGS.put(InspectStatement.NAME, InspectStatement.Args.class);
        ARGS.put(ListStatement.NAME, ListStatement.Args.class);
        ARGS.put(WatchStatement.NAME, WatchStatement.Args.class);
        ARGS.put(SharedStatement.NAME, SharedStatement.Args.class);
        ARGS.put(SharedStatement.RENEW, RenewStatement.Hold.class);
        ARGS.put(FairStatement.NAME, FairStatement.Args.class);
    }

    private static final Map<String, List<String>> COLUMNS = Map.of(
            AcquireStatement.NAME, AcquireStatement.COLUMNS,
            ReleaseStatement.NAME, ReleaseStatement.COLUMNS,
            AbandonStatement.NAME, AbandonStatement.COLUMNS,
            ForceReleaseStatement.NAME, ForceReleaseStatement.COLUMNS,
            InspectStatement.NAME, InspectStatement.COLUMNS,
            ListStatement.NAME, ListStatement.COLUMNS,
            WatchStatement.NAME, WatchStatement.COLUMNS);

    private static final Pattern ROUTINE = Pattern.compile(
            "CREATE (?:OR REPLACE )?(?:FUNCTION|PROCEDURE) (\\w+)\\s*\\((.*?)\\)\\s*(?=RETURNS|LANGUAGE|SQL|MODIFIES|BEGIN)",
            Pattern.DOTALL | Pattern.CASE_INSENSITIVE);
    /** A routine's name and its '(' (a table's column list after INTO is not a call). */
    private static final Pattern CALL =
            Pattern.compile("(?<!INTO )(lockkit_locks_\\w+)\\s*\\(", Pattern.CASE_INSENSITIVE);

    private static final Pattern CALL_ARGUMENT = Pattern.compile("^:(\\w+)(?:::[\\w\\[\\]]+)?$");
    private static final Pattern NOTIFY =
            Pattern.compile("pg_notify\\s*\\(\\s*(?:p_channel|:channel)\\s*,\\s*(.*?)\\)");
    private static final Pattern OUTCOME = Pattern.compile(
            "[ov]_outcome\\s*(?::=|=)\\s*(CASE .*?END|'\\w+')", Pattern.DOTALL | Pattern.CASE_INSENSITIVE);
    private static final Pattern WORD = Pattern.compile("'([a-z_]+)'");

    static Stream<Dialect> dialects() {
        Dialect.Context context = new Dialect.Context(
                SqlFile.DEFAULT_TABLE,
                Duration.ofSeconds(2),
                Duration.ofSeconds(2),
                SqlFile.DEFAULT_TABLE,
                "origin",
                Duration.ofMillis(250));
        return Stream.of(new PostgresDialect(context), new H2Dialect(context), new MariaDbDialect(context));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dialects")
    @DisplayName("every dialect defines exactly the statements of the statement classes")
    void everyDialectDefinesExactlyTheStatements(Dialect dialect) {
        Set<String> expected = new LinkedHashSet<>(ARGS.keySet());
        if (!dialect.queues()) {
            expected.remove(AbandonStatement.NAME);
        }
        if (!(dialect instanceof MariaDbDialect)) {
            expected.remove(WatchStatement.NAME); // only where the wake-ups poll
        }
        Set<String> defined = new LinkedHashSet<>();
        for (String section : dialect.statements().keySet()) {
            defined.add(operation(section));
        }
        assertThat(defined).as("%s/statements.sql", dialect.folder()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(dialect.unusedArguments().keySet())
                .as("%s: statements with unused arguments", dialect)
                .isSubsetOf(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dialects")
    @DisplayName("the :parameters of each statement are its argument record's components")
    void parametersAreTheRecordComponents(Dialect dialect) {
        Map<String, Set<String>> used = new LinkedHashMap<>();
        dialect.statements().forEach((section, sql) -> {
            Set<String> components = new LinkedHashSet<>(NamedSql.components(ARGS.get(operation(section))));
            assertThat(sql.parameterNames())
                    .as("%s: the parameters of %s are components of %s", dialect, section, ARGS.get(operation(section)))
                    .isSubsetOf(components);
            used.computeIfAbsent(operation(section), k -> new LinkedHashSet<>()).addAll(sql.parameterNames());
        });
        used.forEach((operation, parameters) -> {
            Set<String> unused = dialect.unusedArguments().getOrDefault(operation, Set.of());
            Set<String> both = new LinkedHashSet<>(parameters);
            both.retainAll(unused);
            assertThat(both)
                    .as("%s: %s takes none of the arguments it declares unused", dialect, operation)
                    .isEmpty();
            Set<String> all = new LinkedHashSet<>(parameters);
            all.addAll(unused);
            assertThat(all)
                    .as("%s: the parameters of %s and its unused arguments", dialect, operation)
                    .containsExactlyInAnyOrderElementsOf(NamedSql.components(ARGS.get(operation)));
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dialects")
    @DisplayName("a routine call passes the routine's parameters in order and selects its OUT names")
    void routineCallsMatchTheMigrations(Dialect dialect) {
        Map<String, Routine> routines = routines(dialect);
        int calls = 0;
        for (Map.Entry<String, NamedSql> e : dialect.statements().entrySet()) {
            String text = SqlFile.statements(dialect.folder() + "/statements.sql", SqlFile.DEFAULT_TABLE)
                    .get(e.getKey());
            Matcher m = CALL.matcher(text);
            if (!m.find()) {
                continue;
            }
            calls++;
            Routine routine = routines.get(m.group(1).toLowerCase(Locale.ROOT));
            assertThat(routine)
                    .as("%s calls %s, which the migrations define", e.getKey(), m.group(1))
                    .isNotNull();
            List<String> passed = new ArrayList<>();
            for (String argument : arguments(text, m.end())) {
                Matcher a = CALL_ARGUMENT.matcher(argument.trim());
                assertThat(a.matches())
                        .as("%s: argument '%s' is one parameter", e.getKey(), argument)
                        .isTrue();
                passed.add("p_" + snake(a.group(1)));
            }
            assertThat(passed)
                    .as("%s: arguments of %s", e.getKey(), routine.name())
                    .isEqualTo(routine.in());
            if (!text.trim().toUpperCase(Locale.ROOT).startsWith("CALL")) {
                // SELECT ... FROM a function; a CALLed procedure answers with its own result set.
                assertThat(selected(text))
                        .as("%s: the columns selected", e.getKey())
                        .isEqualTo(routine.out());
            }
            assertThat(routine.out())
                    .as("%s: OUT names of %s", e.getKey(), routine.name())
                    .isEqualTo(COLUMNS.get(operation(e.getKey())));
        }
        assertThat(calls)
                .as("%s: statements that call a routine", dialect)
                .isEqualTo(
                        routines.isEmpty()
                                ? 0
                                : (dialect.queues() ? 3 : 2)
                                        + (dialect.statements().containsKey("acquire.fair") ? 1 : 0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dialects")
    @DisplayName("the other statements select the reply columns of their classes")
    void statementsSelectTheReplyColumns(Dialect dialect) {
        Map<String, String> texts = SqlFile.statements(dialect.folder() + "/statements.sql", SqlFile.DEFAULT_TABLE);
        for (String name :
                List.of(InspectStatement.NAME, ListStatement.NAME, ForceReleaseStatement.NAME, WatchStatement.NAME)) {
            if (!texts.containsKey(name)) {
                continue; // steps with update counts (forceRelease on MariaDB), or no such statement
            }
            List<String> columns = COLUMNS.get(name);
            assertThat(selected(texts.get(name)).subList(0, columns.size()))
                    .as("%s: %s selects %s", dialect, name, columns)
                    .isEqualTo(columns);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dialects")
    @DisplayName("the release routine answers in the outcome words of ReleaseStatement, all of them")
    void releaseAnswersTheOutcomeWords(Dialect dialect) {
        Routine release = routines(dialect).get(SqlFile.DEFAULT_TABLE + "_release");
        if (release == null) {
            return; // decided in Java (H2)
        }
        Set<String> words = new TreeSet<>();
        Matcher m = OUTCOME.matcher(release.body());
        while (m.find()) {
            Matcher w = WORD.matcher(m.group(1));
            while (w.find()) {
                words.add(w.group(1));
            }
        }
        assertThat(words).containsExactlyInAnyOrderElementsOf(ReleaseStatement.OUTCOMES);
        for (String outcome : ReleaseStatement.OUTCOMES) {
            assertThat(ReleaseStatement.reply(outcome, "c:o", 7, 3)).isNotNull();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dialects")
    @DisplayName("every notification payload is one of NotifyPayload's forms")
    void notificationPayloadsMatchTheCodec(Dialect dialect) {
        StringBuilder all = new StringBuilder(SqlFile.read(dialect.folder() + "/statements.sql"));
        for (String migration : dialect.migrations()) {
            all.append(SqlFile.read(migration));
        }
        Set<String> forms = new HashSet<>();
        Matcher m = NOTIFY.matcher(SqlFile.withoutComments(all.toString()));
        while (m.find()) {
            String key = "k".repeat(64);
            StringBuilder payload = new StringBuilder();
            String grantee = null;
            String origin = null;
            for (String part : m.group(1).split("\\|\\|")) {
                String p = part.trim();
                switch (p) {
                    case "p_key", ":key" -> payload.append(key);
                    case "v_next.owner", "v_next" -> payload.append(grantee = "c:owner");
                    case "p_origin" -> payload.append(origin = "origin1");
                    default -> {
                        assertThat(p).as("a literal of a payload").matches("'[^']*'");
                        payload.append(p, 1, p.length() - 1);
                    }
                }
            }
            String expected =
                    grantee == null ? NotifyPayload.free(key) : NotifyPayload.handedOver(key, grantee, origin);
            assertThat(payload.toString()).as("payload %s", m.group(1)).isEqualTo(expected);
            assertThat(NotifyPayload.decode(payload.toString()))
                    .isEqualTo(new NotifyPayload.Notice(key, grantee, origin));
            forms.add(grantee == null ? "free" : origin == null ? "handed over" : "handed over by a release");
        }
        if (dialect instanceof PostgresDialect) {
            assertThat(forms).containsExactlyInAnyOrder("free", "handed over", "handed over by a release");
        } else {
            assertThat(forms).as("%s notifies nobody", dialect).isEmpty();
        }
    }

    // ---- parsing ----

    /** A routine of the migrations: its name, IN parameters and OUT names in order, and its body. */
    private record Routine(String name, List<String> in, List<String> out, String body) {}

    /** The routines as the newest migration that defines each leaves them. */
    private static Map<String, Routine> routines(Dialect dialect) {
        Map<String, Routine> routines = new LinkedHashMap<>();
        for (String migration : dialect.migrations()) {
            for (String statement : SqlFile.statementsOf(migration, SqlFile.DEFAULT_TABLE)) {
                Matcher m = ROUTINE.matcher(statement);
                if (!m.find()) {
                    continue;
                }
                List<String> in = new ArrayList<>();
                List<String> out = new ArrayList<>();
                for (String parameter : m.group(2).split(",")) {
                    String[] words = parameter.trim().split("\\s+");
                    if (words[0].equalsIgnoreCase("OUT")) {
                        out.add(words[1]);
                    } else {
                        in.add(words[0].equalsIgnoreCase("IN") ? words[1] : words[0]);
                    }
                }
                String body = statement.substring(m.end());
                if (out.isEmpty()) {
                    out.addAll(resultColumns(body));
                }
                routines.put(m.group(1).toLowerCase(Locale.ROOT), new Routine(m.group(1), in, out, body));
            }
        }
        return routines;
    }

    /** A procedure's result set: the columns of its SELECT that is not SELECT ... INTO (MariaDB). */
    private static List<String> resultColumns(String body) {
        List<String> columns = List.of();
        Matcher m = Pattern.compile("\\bSELECT\\b(.*?);", Pattern.DOTALL | Pattern.CASE_INSENSITIVE)
                .matcher(body);
        while (m.find()) {
            if (!m.group(1).toUpperCase(Locale.ROOT).contains(" INTO ")) {
                columns = selected("SELECT" + m.group(1));
            }
        }
        return columns;
    }

    /** The top-level arguments of the call whose '(' ends at {@code from}. */
    private static List<String> arguments(String text, int from) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        StringBuilder current = new StringBuilder();
        for (int i = from; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (ch == '(') {
                depth++;
            } else if (ch == ')' && depth-- == 0) {
                out.add(current.toString());
                return out;
            } else if (ch == ',' && depth == 0) {
                out.add(current.toString());
                current.setLength(0);
                continue;
            }
            current.append(ch);
        }
        throw new AssertionError("unclosed call in " + text);
    }

    /** The names of the columns the statement's first SELECT returns: each item's alias, or its last word. */
    private static List<String> selected(String text) {
        int start = text.toUpperCase(Locale.ROOT).indexOf("SELECT") + "SELECT".length();
        List<String> items = new ArrayList<>();
        int depth = 0;
        StringBuilder current = new StringBuilder();
        for (int i = start; i < text.length(); i++) {
            char ch = text.charAt(i);
            depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
            boolean from = Character.isWhitespace(ch)
                    && text.regionMatches(true, i + 1, "FROM", 0, 4)
                    && i + 5 < text.length()
                    && Character.isWhitespace(text.charAt(i + 5));
            if (depth == 0 && (ch == ',' || from || ch == ';')) {
                items.add(current.toString().trim());
                current.setLength(0);
                if (ch != ',') {
                    break;
                }
                continue;
            }
            current.append(ch);
        }
        if (!current.toString().isBlank()) {
            items.add(current.toString().trim());
        }
        List<String> names = new ArrayList<>();
        for (String item : items) {
            String[] words = item.split("[\\s.]+");
            names.add(words[words.length - 1].toLowerCase(Locale.ROOT));
        }
        return names;
    }

    private static String operation(String section) {
        int dot = section.indexOf('.');
        return dot < 0 ? section : section.substring(0, dot);
    }

    private static String snake(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
    }
}
