package io.lockkit.spring;

import org.jspecify.annotations.Nullable;

/**
 * The keys of the Redis provider (lock-jedis), {@code lockkit.redis.*}, {@code lockkit.provider=redis}
 * (the default): part of {@link LockkitProperties}, for IDE completion. Not thread-safe; a binding target.
 */
public class LockkitRedisProperties {
    /** The Redis: redis://[[user]:password@]host[:port][/database], or rediss:// for TLS (default redis://localhost:6379, or Boot's spring.data.redis.* address when set). */
    private @Nullable String uri;
    /** The namespace of every key; applications that must not see each other's locks use different prefixes (default lockkit). */
    private @Nullable String keyPrefix;
    /** How long a command may take, including the wait for a connection (default 2s). */
    private @Nullable String timeout;
    /** How long connecting may take (default: the command timeout). */
    private @Nullable String connectTimeout;
    /** The most pooled command connections, each borrowed for one call (default 16). */
    private @Nullable String maxConnections;
    /** The connections' name in CLIENT LIST (default: the factory's client id). */
    private @Nullable String clientName;
    /** The user of the Redis nodes, instead of the URI's (also Sentinel's and Cluster's). */
    private @Nullable String user;
    /** The password of the Redis nodes. */
    private @Nullable String password;
    /** How long a lock handed to a waiter of another process stays with it until that process claims or renews it, before it passes on (default 2s). */
    private @Nullable String claimTimeout;
    /** How long a released lock keeps its last fencing token in Redis (default 60s). */
    private @Nullable String fenceRetention;

    private final Sentinel sentinel = new Sentinel();
    private final Cluster cluster = new Cluster();
    private final ReplicaAcknowledgement replicaAcknowledgement = new ReplicaAcknowledgement();

    public @Nullable String getUri() {
        return uri;
    }

    public void setUri(@Nullable String uri) {
        this.uri = uri;
    }

    public @Nullable String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(@Nullable String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public @Nullable String getTimeout() {
        return timeout;
    }

    public void setTimeout(@Nullable String timeout) {
        this.timeout = timeout;
    }

    public @Nullable String getConnectTimeout() {
        return connectTimeout;
    }

    public void setConnectTimeout(@Nullable String connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public @Nullable String getMaxConnections() {
        return maxConnections;
    }

    public void setMaxConnections(@Nullable String maxConnections) {
        this.maxConnections = maxConnections;
    }

    public @Nullable String getClientName() {
        return clientName;
    }

    public void setClientName(@Nullable String clientName) {
        this.clientName = clientName;
    }

    public @Nullable String getUser() {
        return user;
    }

    public void setUser(@Nullable String user) {
        this.user = user;
    }

    public @Nullable String getPassword() {
        return password;
    }

    public void setPassword(@Nullable String password) {
        this.password = password;
    }

    public @Nullable String getClaimTimeout() {
        return claimTimeout;
    }

    public void setClaimTimeout(@Nullable String claimTimeout) {
        this.claimTimeout = claimTimeout;
    }

    public @Nullable String getFenceRetention() {
        return fenceRetention;
    }

    public void setFenceRetention(@Nullable String fenceRetention) {
        this.fenceRetention = fenceRetention;
    }

    public Sentinel getSentinel() {
        return sentinel;
    }

    public Cluster getCluster() {
        return cluster;
    }

    public ReplicaAcknowledgement getReplicaAcknowledgement() {
        return replicaAcknowledgement;
    }

    /** Redis Sentinel (with {@code lockkit.redis.sentinel.nodes}, instead of the URI). */
    public static class Sentinel {
        /** The master's name. */
        private @Nullable String master;
        /** The Sentinels, as host:port,host:port. */
        private @Nullable String nodes;
        /** The user of the Sentinels. */
        private @Nullable String user;
        /** The password of the Sentinels. */
        private @Nullable String password;

        public @Nullable String getMaster() {
            return master;
        }

        public void setMaster(@Nullable String master) {
            this.master = master;
        }

        public @Nullable String getNodes() {
            return nodes;
        }

        public void setNodes(@Nullable String nodes) {
            this.nodes = nodes;
        }

        public @Nullable String getUser() {
            return user;
        }

        public void setUser(@Nullable String user) {
            this.user = user;
        }

        public @Nullable String getPassword() {
            return password;
        }

        public void setPassword(@Nullable String password) {
            this.password = password;
        }
    }

    /** Redis Cluster. */
    public static class Cluster {
        /** Seed nodes as host:port,host:port (instead of the URI). */
        private @Nullable String nodes;

        public @Nullable String getNodes() {
            return nodes;
        }

        public void setNodes(@Nullable String nodes) {
            this.nodes = nodes;
        }
    }

    /** Replica acknowledgement of each acquisition (WAIT). */
    public static class ReplicaAcknowledgement {
        /** How many replicas must acknowledge each acquisition, else it fails (default 0). */
        private @Nullable String replicas;
        /** How long an acquisition waits for those acknowledgements (default 100ms). */
        private @Nullable String timeout;

        public @Nullable String getReplicas() {
            return replicas;
        }

        public void setReplicas(@Nullable String replicas) {
            this.replicas = replicas;
        }

        public @Nullable String getTimeout() {
            return timeout;
        }

        public void setTimeout(@Nullable String timeout) {
            this.timeout = timeout;
        }
    }
}
