package io.lockkit.cdi.internal;

import jakarta.enterprise.inject.Instance;

/**
 * Finds the container's Jakarta Transactions synchronization registry: a bean of that type (Quarkus,
 * Narayana's CDI extension, most servers), else the standard JNDI name. Touches no JTA type itself,
 * so lock-cdi runs where the API is absent.
 */
final class Transactions {

    static final String REGISTRY = "jakarta.transaction.TransactionSynchronizationRegistry";
    static final String JNDI_NAME = "java:comp/TransactionSynchronizationRegistry";

    private static final System.Logger LOG = System.getLogger(Transactions.class.getName());

    private Transactions() {
    }

    /** Transaction completion over the registry found, or {@link TransactionCompletion#NONE}. */
    static TransactionCompletion find(Instance<Object> beans) {
        Class<?> registryType;
        try {
            registryType = Class.forName(REGISTRY, false, Transactions.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return TransactionCompletion.NONE;
        }
        Object registry = null;
        try {
            Instance<?> candidates = beans.select(registryType);
            if (candidates.isResolvable()) {
                registry = candidates.get();
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "no " + REGISTRY + " bean", e);
        }
        if (registry == null) {
            try {
                registry = new javax.naming.InitialContext().lookup(JNDI_NAME);
            } catch (javax.naming.NamingException | RuntimeException | LinkageError e) {
                LOG.log(System.Logger.Level.DEBUG, "no " + JNDI_NAME + "; @Locked releases do not wait for transactions", e);
            }
        }
        return registryType.isInstance(registry) ? JtaSupport.completion(registry) : TransactionCompletion.NONE;
    }

    /** Loaded only once the JTA API is known to be present. */
    private static final class JtaSupport {
        static TransactionCompletion completion(Object registry) {
            return new JtaCompletion((jakarta.transaction.TransactionSynchronizationRegistry) registry);
        }
    }
}
