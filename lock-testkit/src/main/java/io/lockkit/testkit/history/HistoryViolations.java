package io.lockkit.testkit.history;

import io.lockkit.testkit.history.HoldHistory.Hold;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What a {@link LockHistory} report says about the holds a violation names. Stateless. */
final class HistoryViolations {

    private static final Pattern TOKEN = Pattern.compile("token=(\\d+)");

    private HistoryViolations() {}

    /**
     * The holds with these tokens (thread, times in ms since the run began, outcome) and the faults
     * injected within 5 s of them.
     */
    static String describe(
            List<Hold> holds,
            List<Long> tokens,
            Map<Long, Long> lossHeardAt,
            HistoryClients clients,
            HistoryFaults faults,
            long startedAt) {
        StringBuilder sb = new StringBuilder();
        long window = TimeUnit.SECONDS.toNanos(5);
        for (Hold h : holds) {
            if (!tokens.contains(h.token())) {
                continue;
            }
            sb.append(String.format(
                    "  token %d: %s %.1f-%.1f ms, %s, valid at end %s, loss heard %s%n",
                    h.token(),
                    clients.holder(h),
                    (h.start() - startedAt) / 1e6,
                    (h.end() - startedAt) / 1e6,
                    h.outcome(),
                    h.validAtEnd(),
                    lossHeardAt.containsKey(h.token())));
            for (String fault : faults.near(h.start(), h.end(), window, startedAt)) {
                sb.append("    fault ").append(fault).append(String.format("%n"));
            }
        }
        return sb.toString();
    }

    /** The tokens named ({@code token=N}) in the report's lines. */
    static List<Long> tokensIn(List<String> lines) {
        List<Long> tokens = new ArrayList<>();
        for (String line : lines) {
            Matcher m = TOKEN.matcher(line);
            while (m.find()) {
                tokens.add(Long.parseLong(m.group(1)));
            }
        }
        return tokens;
    }
}
