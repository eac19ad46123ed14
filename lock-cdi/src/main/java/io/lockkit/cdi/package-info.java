/**
 * CDI integration: the {@link io.lockkit.cdi.Locked} and {@link io.lockkit.cdi.DistributedBulkhead}
 * interceptor bindings and an injectable
 * {@link io.lockkit.DistributedLockFactory}, for CDI Full (Weld) and CDI Lite (Quarkus ArC).
 *
 * <p>The factory bean ({@code @ApplicationScoped}, built at application start, drained and closed
 * at shutdown) is built over the application's own {@link io.lockkit.spi.LockProvider} bean when
 * there is one, otherwise from configuration: MicroProfile Config when present, else system properties, else environment
 * variables ({@code lockkit.redis.uri} → {@code LOCKKIT_REDIS_URI}).
 *
 * <table>
 * <caption>Configuration</caption>
 * <tr><th>key</th><th>default</th><th>meaning</th></tr>
 * <tr><td>{@code lockkit.provider}</td><td>{@code redis}</td><td>{@code redis} (needs lock-jedis),
 *     {@code jdbc} (needs lock-jdbc and the database's driver), {@code local} (in-JVM: excludes only
 *     threads of this process), or the name of another provider on the class path (a
 *     {@code io.lockkit.spi.LockProviderFactory}, which reads its own {@code lockkit.<name>.*} keys)</td></tr>
 * <tr><td>{@code lockkit.redis.uri}</td><td>{@code redis://localhost:6379}</td><td>{@code redis://} or
 *     {@code rediss://} URI with optional user, password and database</td></tr>
 * <tr><td>{@code lockkit.redis.key-prefix}</td><td>{@code lockkit}</td><td>namespace of every key</td></tr>
 * <tr><td>{@code lockkit.redis.timeout}</td><td>{@code 2s}</td><td>command timeout</td></tr>
 * <tr><td>{@code lockkit.redis.connect-timeout}</td><td>the command timeout</td><td>connect timeout</td></tr>
 * <tr><td>{@code lockkit.redis.max-connections}</td><td>{@code 16}</td><td>pooled command connections</td></tr>
 * <tr><td>{@code lockkit.redis.client-name}</td><td>the client id</td><td>name in {@code CLIENT LIST}</td></tr>
 * <tr><td>{@code lockkit.redis.user}, {@code lockkit.redis.password}</td><td>none</td><td>credentials of the
 *     Redis nodes (instead of the URI's user info)</td></tr>
 * <tr><td>{@code lockkit.redis.sentinel.master}, {@code lockkit.redis.sentinel.nodes}</td><td>none</td>
 *     <td>Sentinel: master name and {@code host:port} list (instead of the URI)</td></tr>
 * <tr><td>{@code lockkit.redis.sentinel.user}, {@code lockkit.redis.sentinel.password}</td><td>none</td>
 *     <td>credentials of the Sentinels</td></tr>
 * <tr><td>{@code lockkit.redis.cluster.nodes}</td><td>none</td><td>Cluster: seed {@code host:port} list</td></tr>
 * <tr><td>{@code lockkit.redis.tls}</td><td>{@code false}</td><td>TLS to Sentinel and Cluster nodes</td></tr>
 * <tr><td>{@code lockkit.redis.tls.trust-store},
 *     {@code lockkit.redis.tls.trust-store-password}, {@code lockkit.redis.tls.trust-store-type}</td><td>the JVM's</td>
 *     <td>trust store (PKCS12 or JKS)</td></tr>
 * <tr><td>{@code lockkit.redis.tls.key-store},
 *     {@code lockkit.redis.tls.key-store-password}, {@code lockkit.redis.tls.key-store-type}</td><td>none</td>
 *     <td>client certificate</td></tr>
 * <tr><td>{@code lockkit.redis.replica-acknowledgement.replicas},
 *     {@code lockkit.redis.replica-acknowledgement.timeout}</td><td>{@code 0},
 *     {@code 100ms}</td><td>replicas that must acknowledge each acquisition</td></tr>
 * <tr><td>{@code lockkit.redis.claim-timeout}</td><td>{@code 2s}</td><td>how long a lock handed to another process stays with it until claimed or renewed</td></tr>
 * <tr><td>{@code lockkit.redis.fence-retention}</td><td>{@code 60s}</td><td>how long a released lock keeps
 *     its token</td></tr>
 * <tr><td>{@code lockkit.jdbc.url}</td><td>none</td><td>JDBC URL of the lock database (the provider keeps a
 *     small pool of its own); unset: {@code lockkit.jdbc.datasource}, else the application's
 *     {@code @Default javax.sql.DataSource} bean</td></tr>
 * <tr><td>{@code lockkit.jdbc.user}, {@code lockkit.jdbc.password}</td><td>none</td><td>credentials for
 *     {@code lockkit.jdbc.url}</td></tr>
 * <tr><td>{@code lockkit.jdbc.datasource}</td><td>none</td><td>the DataSource to use: the name of a
 *     {@code @Named} DataSource bean (a Quarkus named datasource), else a JNDI name
 *     (e.g. {@code java:jboss/datasources/ExampleDS})</td></tr>
 * <tr><td>{@code lockkit.jdbc.schema}</td><td>the connection's</td><td>schema of the lock table</td></tr>
 * <tr><td>{@code lockkit.jdbc.table}</td><td>{@code lockkit_locks}</td><td>the lock table's name</td></tr>
 * <tr><td>{@code lockkit.jdbc.create-schema}</td><td>{@code false}</td><td>create the lock table (and its
 *     sequence) at start when missing</td></tr>
 * <tr><td>{@code lockkit.jdbc.timeout}</td><td>{@code 2s}</td><td>statement timeout (whole seconds)</td></tr>
 * <tr><td>{@code lockkit.jdbc.listen}</td><td>{@code true}</td><td>PostgreSQL: wake waiters by
 *     LISTEN/NOTIFY; {@code false} behind a transaction-mode pooler (PgBouncer): waiters poll</td></tr>
 * <tr><td>{@code lockkit.watchdog-lease}</td><td>{@code 30s}</td><td>lease the watchdog sets and renews</td></tr>
 * <tr><td>{@code lockkit.startup}</td><td>{@code eager}</td><td>{@code eager}: build the factory and ask the
 *     backend one question at application start, failing the deployment with the key to fix;
 *     {@code lazy}: at first use</td></tr>
 * <tr><td>{@code lockkit.drain-timeout}</td><td>{@code 30s}</td><td>how long undeploy or shutdown lets running
 *     {@code @Locked} methods keep their locks before releasing them (and reporting them lost)</td></tr>
 * <tr><td>{@code lockkit.client-id}</td><td>{@code <host>/<pid>/<suffix>}</td><td>the factory's client id, shown
 *     as the holder's client by {@code inspect}, listings and the operator CLI, and logged at start (1 to 64
 *     characters of {@code A-Z a-z 0-9 . _ - / @ +}); it must differ between the instances of the application,
 *     so set it from something each one has of its own, e.g. the environment variable
 *     {@code LOCKKIT_CLIENT_ID} (see {@link io.lockkit.DistributedLockFactory.Builder#clientId})</td></tr>
 * <tr><td>{@code lockkit.health.enabled}</td><td>{@code true}</td><td>MicroProfile Health: whether the readiness
 *     check asks the backend; {@code false} keeps it UP without asking</td></tr>
 * <tr><td>{@code lockkit.health.timeout}</td><td>{@code 500ms}</td><td>how long the readiness check waits for
 *     the backend's answer before it reports DOWN</td></tr>
 * <tr><td>{@code lockkit.health.max-losses-per-minute}</td><td>none</td><td>readiness is DOWN when more
 *     holds than this were lost in the last minute; unset, losses are reported but do not make it DOWN</td></tr>
 * <tr><td>{@code lockkit.metrics.enabled}</td><td>{@code true}</td><td>with Micrometer and lock-micrometer present:
 *     whether the library's factory binds lockkit's meters to the application's {@code MeterRegistry}
 *     bean</td></tr>
 * <tr><td>{@code lockkit.leadership.<name>.lease}</td><td>the watchdog lease</td><td>declares the leadership
 *     {@code <name>} (any of its keys does), which campaigns from application start and fires
 *     {@link io.lockkit.cdi.LeadershipGranted} and {@link io.lockkit.cdi.LeadershipRevoked}; its lease is the
 *     time to replace a leader that died</td></tr>
 * <tr><td>{@code lockkit.leadership.<name>.rejoin-delay}</td><td>the lease</td><td>how long the leadership
 *     {@code <name>} sits out after stepping down</td></tr>
 * </table>
 *
 * <p>Unknown {@code lockkit.*} keys are logged at start with the key they most likely mean; a key under
 * {@code lockkit.leadership.} that is no leadership's setting fails the start with the one it most
 * likely means. Declared leaderships are closed (their leaders step down, {@code LeadershipRevoked}
 * with reason {@code CLOSED}) when the application stops, before running {@code @Locked} methods are
 * drained; observe the events with {@link io.lockkit.cdi.LeaderOf @LeaderOf("name")} to watch one
 * name, or inject {@code @LeaderOf("name") Leadership} to ask whether this instance leads. Inside a
 * Jakarta Transactions transaction, a {@code @Locked} release waits for the transaction's
 * completion ({@link io.lockkit.cdi.Locked}); {@link io.lockkit.cdi.TransactionLocks} does the same
 * for the explicit API. The JDBC provider's statements never join the caller's transaction: when
 * the container has a JTA {@code TransactionManager} (a bean, or at {@code java:/TransactionManager}
 * or {@code java:appserver/TransactionManager}), each call runs with the caller's transaction
 * suspended; without one, the DataSource must hand out connections outside transactions.
 *
 * <p>Durations are ISO-8601 ({@code PT2S}) or a number with {@code ms}, {@code s}, {@code m},
 * {@code h} or {@code d} ({@code 500ms}); a bare number is seconds. A bad value fails the factory's
 * creation with a message naming the key.
 *
 * <p>An application replaces the factory by producing its own {@code DistributedLockFactory} (a
 * plain bean: no {@code @Alternative} needed; produce it {@code @ApplicationScoped} or
 * {@code @Singleton}), or only the backend by producing a {@code LockProvider} ({@code @Singleton}
 * or {@code @Dependent}: provider classes are final and cannot be proxied); the factory built over
 * it owns it and closes it. Where the container offers a Jakarta Concurrency
 * {@code ManagedThreadFactory} (as a bean or at {@code java:comp/DefaultManagedThreadFactory}), the
 * factory's and the Redis provider's threads come from it.
 */
@NullMarked
package io.lockkit.cdi;

import org.jspecify.annotations.NullMarked;
