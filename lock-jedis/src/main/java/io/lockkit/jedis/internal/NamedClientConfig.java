package io.lockkit.jedis.internal;

import java.util.function.Supplier;
import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocketFactory;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.CommandKeyArgumentPreProcessor;
import redis.clients.jedis.HostAndPortMapper;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisCredentials;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.authentication.AuthXManager;
import redis.clients.jedis.json.JsonObjectMapper;

/**
 * A Jedis client configuration whose connection name is read from a {@link ClientName} each time
 * a connection opens; everything else is {@code delegate}'s. Immutable apart from the name;
 * thread-safe.
 */
// Every method of JedisClientConfig is forwarded (NamedClientConfigTest checks that none is
// left to the interface's default when Jedis adds one).
final class NamedClientConfig implements JedisClientConfig {

    private final JedisClientConfig delegate;
    private final ClientName name;

    NamedClientConfig(JedisClientConfig delegate, ClientName name) {
        this.delegate = delegate;
        this.name = name;
    }

    @Override
    public String getClientName() {
        return name.get();
    }

    @Override
    public RedisProtocol getRedisProtocol() {
        return delegate.getRedisProtocol();
    }

    @Override
    public boolean isAutoNegotiateProtocol() {
        return delegate.isAutoNegotiateProtocol();
    }

    @Override
    public int getConnectionTimeoutMillis() {
        return delegate.getConnectionTimeoutMillis();
    }

    @Override
    public int getSocketTimeoutMillis() {
        return delegate.getSocketTimeoutMillis();
    }

    @Override
    public int getBlockingSocketTimeoutMillis() {
        return delegate.getBlockingSocketTimeoutMillis();
    }

    @Override
    public String getUser() {
        return delegate.getUser();
    }

    @Override
    public String getPassword() {
        return delegate.getPassword();
    }

    @Override
    public Supplier<RedisCredentials> getCredentialsProvider() {
        return delegate.getCredentialsProvider();
    }

    @Override
    public AuthXManager getAuthXManager() {
        return delegate.getAuthXManager();
    }

    @Override
    public int getDatabase() {
        return delegate.getDatabase();
    }

    @Override
    public boolean isSsl() {
        return delegate.isSsl();
    }

    @Override
    @Deprecated // as in JedisClientConfig; forwarded, since Jedis still reads it when set
    @SuppressWarnings("deprecation")
    public SSLSocketFactory getSslSocketFactory() {
        return delegate.getSslSocketFactory();
    }

    @Override
    @Deprecated // as in JedisClientConfig; forwarded, since Jedis still reads it when set
    @SuppressWarnings("deprecation")
    public SSLParameters getSslParameters() {
        return delegate.getSslParameters();
    }

    @Override
    public SslOptions getSslOptions() {
        return delegate.getSslOptions();
    }

    @Override
    public HostnameVerifier getHostnameVerifier() {
        return delegate.getHostnameVerifier();
    }

    @Override
    public HostAndPortMapper getHostAndPortMapper() {
        return delegate.getHostAndPortMapper();
    }

    @Override
    public boolean isReadOnlyForRedisClusterReplicas() {
        return delegate.isReadOnlyForRedisClusterReplicas();
    }

    @Override
    public ClientSetInfoConfig getClientSetInfoConfig() {
        return delegate.getClientSetInfoConfig();
    }

    @Override
    public CommandKeyArgumentPreProcessor getCommandKeyArgumentPreProcessor() {
        return delegate.getCommandKeyArgumentPreProcessor();
    }

    @Override
    public JsonObjectMapper getJsonObjectMapper() {
        return delegate.getJsonObjectMapper();
    }

    @Override
    public int getSearchDialect() {
        return delegate.getSearchDialect();
    }

    @Override
    public String toString() {
        return "NamedClientConfig[" + name + "]";
    }
}
