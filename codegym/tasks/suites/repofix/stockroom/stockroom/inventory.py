"""Stock levels per SKU."""


class InsufficientStock(Exception):
    pass


class Inventory:
    def __init__(self):
        self._stock = {}

    def receive(self, sku, quantity):
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        self._stock[sku] = self._stock.get(sku, 0) + quantity

    def available(self, sku):
        return self._stock.get(sku, 0)

    def remove(self, sku, quantity):
        """Take `quantity` units out; raise InsufficientStock if there are fewer."""
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        if quantity >= self.available(sku):
            raise InsufficientStock(f"only {self.available(sku)} of {sku} left")
        self._stock[sku] -= quantity
        return self._stock[sku]
