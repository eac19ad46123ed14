package io.lockkit.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A Spring Boot application on lockkit's starter alone: stock reservations under {@code @Locked}
 * ({@link StockService}, served by {@link StockController}) and a report that every instance
 * schedules and one instance runs per tick ({@link ReportJob}). One property configures lockkit:
 * {@code lockkit.redis.uri}.
 *
 * <pre>{@code
 * java -jar target/lock-spring-example-<version>.jar --lockkit.redis.uri=redis://localhost:6379 --server.port=8081
 * }</pre>
 */
@SpringBootApplication
@EnableScheduling
public class InventoryApplication {

    public static void main(String[] args) {
        SpringApplication.run(InventoryApplication.class, args);
    }
}
