"""Password hashing at test speed (Django's advice, "Speeding up the tests"): the same algorithm and stored form
as the server's, PBKDF2-SHA256, with one iteration instead of a million. The count is stored in the hash, so a
server started apart from the tests (bin/start) checks these passwords as it checks its own."""

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class QuickPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    iterations = 1
