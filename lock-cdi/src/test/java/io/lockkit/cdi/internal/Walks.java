package io.lockkit.cdi.internal;

import io.lockkit.LocalLockProvider;
import io.lockkit.cdi.DistributedBulkhead;
import io.lockkit.cdi.LockMode;
import io.lockkit.cdi.Locked;
import io.lockkit.spi.LockProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.Stereotype;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declarations both extensions must read alike: overloads whose parameter types share a simple name,
 * an override of an annotated method, a binding inherited from a superclass and one carried by a
 * stereotype, a private method, and two {@code @Default} providers.
 */
final class Walks {

    private Walks() {}

    /** Shares its simple name with {@link Parcel.Order}; has an id. */
    public static class Order {
        public String getId() {
            return "o-1";
        }
    }

    /** Holds a second {@code Order}, which has no id. */
    public static final class Parcel {
        private Parcel() {}

        public static class Order {
            public int getWeight() {
                return 1;
            }
        }
    }

    public static class BaseShipping {
        @Locked("cancel:{missing}")
        public void cancel(long id) {}

        @Locked("audit:{entry}")
        public void audit(String entry) {}
    }

    @ApplicationScoped
    @Locked("order:{order.id}")
    public static class Shipping extends BaseShipping {
        public void ship(Order order) {}

        public void ship(Parcel.Order order) {}

        @Locked("batch:{1}")
        public void ship(Parcel.Order order, int batch) {}

        @Override
        public void cancel(long id) {}

        @Locked
        private void secret() {}

        @Locked("call")
        public void call() {
            secret();
        }
    }

    @Stereotype
    @Locked("tenant:{tenantId}")
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    public @interface TenantLocked {}

    @ApplicationScoped
    @TenantLocked
    public static class Tenants {
        public void run(String tenant) {}
    }

    @ApplicationScoped
    public static class Providers {
        @Produces
        LockProvider first() {
            return new LocalLockProvider();
        }

        @Produces
        LockProvider second() {
            return new LocalLockProvider();
        }
    }

    /** Bulkheads whose members cannot work, and two of one name with different capacities. */
    @ApplicationScoped
    public static class Bulkheads {
        @DistributedBulkhead(value = "exports", capacity = 0)
        public void noCapacity() {}

        @DistributedBulkhead(value = "exports", capacity = 2, permits = 0)
        public void noPermits() {}

        @DistributedBulkhead(value = "exports", capacity = 2, permits = 3)
        public void tooManyPermits() {}

        @DistributedBulkhead(value = "partner", capacity = 3)
        public void quote() {}

        @DistributedBulkhead(value = "partner", capacity = 2)
        public void order() {}

        /** Sound: read and write sides of one name, and a bulkhead of a capacity of its own. */
        @Locked(value = "catalog", mode = LockMode.READ)
        @DistributedBulkhead(value = "catalog-readers", capacity = 4, permits = 2)
        public void browse() {}
    }
}
