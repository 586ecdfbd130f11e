"""The one error the client raises."""


class HistoryHubError(Exception):
    """HistoryHub answered with an error, or could not be reached.

    ``status`` is the HTTP status (``None`` when no answer arrived), ``code``
    the API's error code (``unauthorized``, ``session_not_found``, …, or
    ``connection_failed`` when no answer arrived) and ``message`` its sentence.
    """

    def __init__(self, status, code, message):
        super().__init__(f"{status} {code}: {message}" if status is not None else f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
