/// A webhook endpoint as stored (never its secret once created).
public struct WebhookEndpoint: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Deliveries are sent.
        case active
        /// A delivery failed for the whole retry schedule: nothing is sent until it is enabled again
        /// (`webhook enable`, or a `webhook test`); its deliveries wait.
        case failing
    }
    public let id: Int64
    /// nil: an administrator's endpoint, which receives every team's events.
    public let team: TeamID?
    public let url: String
    public let events: WebhookEventPatterns
    public let createdAt: String
    public let state: State
    public let failingSince: String?
    /// Why it is failing (the last attempt's status or error).
    public let failure: String?

    public init(
        id: Int64, team: TeamID?, url: String, events: WebhookEventPatterns, createdAt: String, state: State, failingSince: String?,
        failure: String?
    ) {
        self.id = id
        self.team = team
        self.url = url
        self.events = events
        self.createdAt = createdAt
        self.state = state
        self.failingSince = failingSince
        self.failure = failure
    }

    /// Whether an event of `type` belonging to `teams` is for this endpoint: a team's endpoint sees
    /// only events of its team; an administrator's, every event its patterns match.
    public func wants(_ type: WebhookEventType, teams: [TeamID]) -> Bool {
        guard events.matches(type) else { return false }
        guard let team else { return true }
        return teams.contains(team)
    }
}

/// One event's delivery to one endpoint: how far it got.
public struct WebhookDelivery: Sendable, Equatable {
    public let endpointID: Int64
    public let eventID: Int64
    /// The Standard Webhooks `webhook-id`: the same on every attempt.
    public let messageID: String
    public let type: String
    public let createdAt: String
    public let attempts: Int
    /// Milliseconds since 1970 of the next attempt (nil once delivered).
    public let nextAttemptAt: Int64?
    public let lastStatus: Int?
    public let lastError: String?
    public let deliveredAt: String?

    public init(
        endpointID: Int64, eventID: Int64, messageID: String, type: String, createdAt: String, attempts: Int, nextAttemptAt: Int64?,
        lastStatus: Int?, lastError: String?, deliveredAt: String?
    ) {
        self.endpointID = endpointID
        self.eventID = eventID
        self.messageID = messageID
        self.type = type
        self.createdAt = createdAt
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.deliveredAt = deliveredAt
    }
}
