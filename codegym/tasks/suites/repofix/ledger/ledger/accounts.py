"""Accounts with balances in cents and transfers between them."""


class InsufficientFunds(Exception):
    pass


class Account:
    def __init__(self, owner, balance=0, limit=None):
        self.owner = owner
        self.balance = balance
        self.limit = limit  # the most this account may receive in one transfer

    def withdraw(self, amount):
        if amount <= 0:
            raise ValueError("amount must be positive")
        if amount > self.balance:
            raise InsufficientFunds(f"{self.owner} has {self.balance}, needs {amount}")
        self.balance -= amount

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("amount must be positive")
        if self.limit is not None and amount > self.limit:
            raise ValueError(f"{self.owner} cannot receive more than {self.limit} at once")
        self.balance += amount


def transfer(source, target, amount):
    """Move `amount` from `source` to `target`: both balances change, or neither does."""
    source.withdraw(amount)
    target.deposit(amount)
