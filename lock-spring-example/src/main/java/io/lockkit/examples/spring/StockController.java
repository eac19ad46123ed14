package io.lockkit.examples.spring;

import io.lockkit.examples.spring.StockService.Reservation;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** The HTTP face of {@link StockService}: {@code POST /stock/{sku}/reservations?quantity=n}. */
@RestController
@RequestMapping("/stock/{sku}")
public class StockController {

    private final StockService stock;

    public StockController(StockService stock) {
        this.stock = stock;
    }

    /** Reserves {@code quantity} (1 to 1000) of {@code sku} under the SKU's lock; a bad SKU is refused before it. */
    @PostMapping("/reservations")
    public Reservation reserve(@PathVariable String sku, @RequestParam(defaultValue = "1") int quantity) {
        return stock.reserve(SharedFiles.checkedSku(sku), checked(quantity));
    }

    /** The same without the lock: the negative control of SpringExampleIT. */
    @PostMapping("/unlocked-reservations")
    public Reservation reserveWithoutLock(@PathVariable String sku, @RequestParam(defaultValue = "1") int quantity) {
        return stock.reserveWithoutLock(SharedFiles.checkedSku(sku), checked(quantity));
    }

    /** The reservations of {@code sku} so far. */
    @GetMapping
    public int reserved(@PathVariable String sku) {
        return stock.reserved(sku);
    }

    /** A bad SKU or quantity: 400 with the message. */
    @ExceptionHandler(IllegalArgumentException.class)
    @ResponseStatus(HttpStatus.BAD_REQUEST)
    public String badRequest(IllegalArgumentException e) {
        return String.valueOf(e.getMessage());
    }

    private static int checked(int quantity) {
        if (quantity < 1 || quantity > 1000) {
            throw new IllegalArgumentException("quantity must be 1 to 1000; was " + quantity);
        }
        return quantity;
    }
}
