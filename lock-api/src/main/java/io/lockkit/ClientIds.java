package io.lockkit;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Client ids: the part of every owner id before its first {@code ':'}, one per factory.
 *
 * <p>Design notes: the default names the machine and the process, so an operator who reads it in
 * {@code inspect}, a listing or the CLI knows which instance holds a lock:
 * {@code <host>/<pid>/<suffix>}, e.g. {@code orders-7d9f8c-x2k4p/1/k3x9q0}. The host is the
 * {@code HOSTNAME} variable a container or pod gets, else the kernel's host name (Linux, without a
 * DNS lookup), else {@link InetAddress#getLocalHost()}'s; it is read once per JVM. The suffix keeps
 * ids apart where host and pid repeat: several factories of one JVM (a JVM-wide counter from a
 * random start, so they always differ) and a restarted container, whose process is pid 1 again (a
 * random start per JVM: two incarnations share it with a chance of one in 36<sup>6</sup>). A
 * process must never reuse a live client id: the backend would take its threads for those of the
 * earlier process and let them in reentrantly.
 *
 * <p>Constraints an id meets, default or given: 1 to {@value #MAX_LENGTH} characters of
 * {@code A-Z a-z 0-9 . _ - / @ +}: no {@code ':'} (the end of the client part of an owner id, see
 * {@link LockInfo#clientIdOf}), no spaces (PostgreSQL's wake-up payloads are split at spaces), no
 * {@code '~'} (the Redis provider's own hash fields start with it), and short enough that the
 * longest owner id ({@code <client id>:t<thread id>}, at most 21 characters more) fits the JDBC lock
 * table's {@code owner VARCHAR(200)}. A long host name is cut to fit; pid and suffix are kept.
 */
final class ClientIds {

    /** The longest client id. */
    static final int MAX_LENGTH = 64;

    private static final int SUFFIX_LENGTH = 6;
    private static final long SUFFIX_SPACE = 2_176_782_336L; // 36^6
    private static final AtomicLong NEXT = new AtomicLong(new SecureRandom().nextLong() & Long.MAX_VALUE);
    private static volatile @Nullable String host;

    private ClientIds() {}

    /** A new default id: {@code <host>/<pid>/<suffix>}, different from every other one this JVM made. */
    static String next() {
        String pid = Long.toString(ProcessHandle.current().pid());
        String suffix = Long.toString((NEXT.getAndIncrement() & Long.MAX_VALUE) % SUFFIX_SPACE, 36);
        suffix = "0".repeat(SUFFIX_LENGTH - suffix.length()) + suffix;
        return compose(host(), pid, suffix);
    }

    /** {@code host/pid/suffix}, the host made to fit the allowed characters and the length. */
    static String compose(String hostName, String pid, String suffix) {
        int room = MAX_LENGTH - pid.length() - suffix.length() - 2;
        String h = sanitize(hostName);
        if (h.length() > room) {
            h = h.substring(0, room);
        }
        return h + "/" + pid + "/" + suffix;
    }

    /**
     * Checks a client id given by the application.
     *
     * @throws IllegalArgumentException naming {@code clientId} when it is null, empty, longer than
     *         {@value #MAX_LENGTH} characters, or has a character outside {@code A-Z a-z 0-9 . _ - / @ +}
     */
    static String check(String clientId) {
        if (clientId == null) {
            throw new IllegalArgumentException("clientId must not be null");
        }
        if (clientId.isEmpty() || clientId.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("clientId must be 1 to " + MAX_LENGTH + " characters, was "
                    + clientId.length() + " ('" + printable(clientId) + "')");
        }
        for (int i = 0; i < clientId.length(); i++) {
            if (!allowed(clientId.charAt(i))) {
                throw new IllegalArgumentException(
                        "clientId may hold only A-Z a-z 0-9 . _ - / @ + (no ':' or spaces: it"
                                + " is the part of owner ids before the first ':'), was '" + printable(clientId) + "'");
            }
        }
        return clientId;
    }

    static boolean allowed(char c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || c == '.'
                || c == '_'
                || c == '-'
                || c == '/'
                || c == '@'
                || c == '+';
    }

    /** {@code name} with every character an id may not hold replaced by '-'; "unknown-host" when nothing is left. */
    static String sanitize(@Nullable String name) {
        if (name == null || name.isBlank()) {
            return "unknown-host";
        }
        StringBuilder sb = new StringBuilder(name.strip());
        for (int i = 0; i < sb.length(); i++) {
            char c = sb.charAt(i);
            // '/' separates host, pid and suffix: not part of a host
            if (!allowed(c) || c == '/') {
                sb.setCharAt(i, '-');
            }
        }
        return sb.toString();
    }

    private static String printable(String s) {
        StringBuilder sb = new StringBuilder(Math.min(s.length(), MAX_LENGTH + 8));
        for (int i = 0; i < s.length() && i < MAX_LENGTH + 8; i++) {
            char c = s.charAt(i);
            sb.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return s.length() > MAX_LENGTH + 8 ? sb + "..." : sb.toString();
    }

    /** This machine's name, found once per JVM. */
    static String host() {
        String h = host;
        if (h == null) {
            h = findHost();
            host = h;
        }
        return h;
    }

    private static String findHost() {
        String fromEnv = System.getenv("HOSTNAME");
        if (fromEnv == null || fromEnv.isBlank()) {
            fromEnv = System.getenv("COMPUTERNAME"); // Windows
        }
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv.strip();
        }
        try {
            Path kernel = Path.of("/proc/sys/kernel/hostname");
            if (Files.isReadable(kernel)) {
                String name =
                        Files.readString(kernel, StandardCharsets.US_ASCII).strip();
                if (!name.isEmpty()) {
                    return name;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or not readable: ask the JDK
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException | RuntimeException e) {
            return "unknown-host";
        }
    }
}
