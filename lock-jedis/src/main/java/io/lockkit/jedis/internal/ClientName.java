package io.lockkit.jedis.internal;

/**
 * The name a provider's connections give Redis ({@code CLIENT SETNAME}, shown in {@code CLIENT
 * LIST}): the one the application set, or else the client id of the first factory built over the
 * provider ({@code <host>/<pid>/<suffix>}), {@value #UNBOUND} until then. Read by Jedis each time
 * it opens a connection; thread-safe.
 */
// Design notes: Jedis reads the name from its client configuration when it opens a connection,
// and the configuration is fixed when the client is built, before any factory (and so any client
// id) exists: the configuration asks this holder instead (NamedClientConfig). A connection opened
// before keeps the provisional name: Jedis opens one while it builds a client (to learn the
// protocol) and pools it, which is why RedisClients.adoptClientId drops the idle connections.
public final class ClientName {

    /** The name of connections opened before a factory told its client id. */
    public static final String UNBOUND = "lockkit";

    private final boolean given;
    private volatile String name;
    private boolean adopted;

    private ClientName(String name, boolean given) {
        this.name = name;
        this.given = given;
    }

    /** The name the application chose; never replaced. */
    public static ClientName given(String name) {
        return new ClientName(name, true);
    }

    /** {@value #UNBOUND} until {@link #adopt} names the connections after a client id. */
    public static ClientName fromClientId() {
        return new ClientName(UNBOUND, false);
    }

    /**
     * Names connections opened from now on after {@code clientId}, made fit for {@code CLIENT
     * SETNAME}; only the first call counts, and none when the application chose the name.
     *
     * @return whether the name changed
     */
    public synchronized boolean adopt(String clientId) {
        if (given || adopted) {
            return false;
        }
        adopted = true;
        name = fit(clientId);
        return true;
    }

    /** The name for a connection opened now. */
    public String get() {
        return name;
    }

    /**
     * {@code s} with every character {@code CLIENT SETNAME} refuses (anything but {@code '!'} to
     * {@code '~'}) replaced by {@code '-'}: Jedis would silently send no name at all for it.
     */
    static String fit(String s) {
        if (s.isEmpty()) {
            return UNBOUND;
        }
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            b.append(c >= '!' && c <= '~' ? c : '-');
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return name;
    }
}
