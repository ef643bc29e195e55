import ClipApp
import HTTP1

extension ClipAPI {
    /// Serves every operation of the application layer at its route (`Application.bindings`): the
    /// path parameters and query items are the input's arguments, the caller comes from the token,
    /// and the layer admits it and reads the input (docs/architecture.md#the-application-layer).
    func registerOperations() {
        for binding in Application.bindings {
            add(binding.method, binding.path, binding.callers == .open ? .open : .token) { api, c in
                var arguments = Arguments(c.query)
                for name in binding.pathParameters { arguments.append(name, c.parameters[name]) }
                if binding.method == "GET" || binding.method == "HEAD" { try c.noBody() }
                let session = Session(registry: c.registry, caller: c.applicationCaller, outbound: api.outbound)
                do { return json(try binding.perform(arguments, session), status: binding.status) } catch let refusal as CallerRefusal {
                    switch refusal {
                    case .unauthenticated(let message): throw Problem.unauthorized(message)
                    case .forbidden(let message): throw Problem.forbidden(message)
                    }
                }
            }
        }
    }
}

extension Context {
    /// The caller as the application layer knows it; a request without a token is anyone.
    var applicationCaller: Caller {
        switch principal {
        case .admin(let id)?: .admin(tokenID: id)
        case .team(let team, let id)?: .team(team, tokenID: id)
        case nil: .anyone
        }
    }
}
