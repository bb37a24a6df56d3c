package kafkabus

import "github.com/segmentio/kafka-go"

// Headers adapts a message's headers to OpenTelemetry's TextMapCarrier,
// so that a trace's context rides along with the message (traceparent)
// from the outbox relay to every consumer.
type Headers struct{ H *[]kafka.Header }

// Get returns the first value of key, or "".
func (c Headers) Get(key string) string {
	for _, h := range *c.H {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}

// Set replaces key's value, or adds it.
func (c Headers) Set(key, value string) {
	for i, h := range *c.H {
		if h.Key == key {
			(*c.H)[i].Value = []byte(value)
			return
		}
	}
	*c.H = append(*c.H, kafka.Header{Key: key, Value: []byte(value)})
}

// Keys lists the header keys.
func (c Headers) Keys() []string {
	keys := make([]string, len(*c.H))
	for i, h := range *c.H {
		keys[i] = h.Key
	}
	return keys
}
