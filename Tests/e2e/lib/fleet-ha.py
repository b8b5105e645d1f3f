#!/usr/bin/python3
"""Home Assistant's part in Tests/e2e/fleet.sh: a paho-mqtt (1.x API) client on the test's broker.

Commands (one per run; every line printed is `key value`; exit 1 with a message on failure):
  discovery ID                 the retained discovery configs of kiosk ID: present and holding what
                               Home Assistant's MQTT select and binary_sensor need
  no-discovery ID              no retained discovery config of kiosk ID (deleted)
  retained TOPIC               the retained payload of TOPIC ("<none>" when there is none)
  wait TOPIC KEY VALUE SECS    the state JSON on TOPIC has KEY == VALUE within SECS (a retained one counts)
  command TOPIC PAYLOAD KEY VALUE STATE...
                               subscribes to every STATE topic, sends PAYLOAD to TOPIC (QoS 1) and
                               waits until each state has KEY == VALUE: prints the slowest time
  watch STATE SECS             prints `at MONOTONIC preference shown` for each state message for SECS
  times COUNT TOPIC STATE      COUNT commands alternating dark/light (each a change): command-to-state p50/p99 (ms)
  flood TOPIC SECS RATE        RATE messages a second for SECS on TOPIC and its neighbours:
                               unknown words, 2 KiB payloads, binary, empty
  mixed TOPIC SECS RATE        the same with every other message valid (light, dark, light, ...);
                               the last one sent is valid (QoS 1): prints `mixed sent N valid V last WORD`
Connection: MQTT_HOST, MQTT_PORT, MQTT_USER, MQTT_PASSWORD, MQTT_CA (TLS when set).
"""
import json
import os
import socket
import sys
import time

import paho.mqtt.client as mqtt


def connect(on_message=None, subscribe=()):
    c = mqtt.Client(client_id="ha-%d-%d" % (os.getpid(), time.monotonic_ns() % 100000), clean_session=True)
    if os.environ.get("MQTT_USER"):
        c.username_pw_set(os.environ["MQTT_USER"], os.environ.get("MQTT_PASSWORD"))
    if os.environ.get("MQTT_CA"):
        c.tls_set(ca_certs=os.environ["MQTT_CA"])
    if on_message:
        c.on_message = on_message
    subscribed = []
    c.on_subscribe = lambda *a: subscribed.append(1)
    c.connect(os.environ.get("MQTT_HOST", "127.0.0.1"), int(os.environ["MQTT_PORT"]), 30)
    # No Nagle delay on small packets (Home Assistant's client and the kiosk's set it too).
    c.socket().setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    c.loop_start()
    for t in subscribe:
        c.subscribe(t, 1)
    deadline = time.monotonic() + 5
    while len(subscribed) < len(subscribe) and time.monotonic() < deadline:
        time.sleep(0.01)
    if len(subscribed) < len(subscribe):
        sys.exit("FAIL: subscriptions not acknowledged")
    return c


def retained(topics, secs=1.0):
    got = {}

    def on_message(c, u, m):
        if m.retain:
            got[m.topic] = m.payload

    c = connect(on_message, topics)
    time.sleep(secs)
    c.loop_stop()
    c.disconnect()
    return got


def discovery(kid):
    prefix = os.environ.get("DISCOVERY_PREFIX", "homeassistant")
    got = retained(["%s/+/%s/+/config" % (prefix, kid)])
    sel = got.get("%s/select/%s/appearance/config" % (prefix, kid))
    bs = got.get("%s/binary_sensor/%s/dark/config" % (prefix, kid))
    if not sel or not bs:
        sys.exit("FAIL: discovery configs missing: %s" % sorted(got))
    sel, bs = json.loads(sel), json.loads(bs)
    for name, cfg, need in (("select", sel, ["command_topic", "options", "state_topic", "value_template"]),
                            ("binary_sensor", bs, ["state_topic", "payload_on", "payload_off", "value_template"])):
        for k in need + ["unique_id", "name", "availability_topic", "payload_available", "payload_not_available", "device"]:
            if k not in cfg:
                sys.exit("FAIL: %s config lacks %s: %s" % (name, k, cfg))
        d = cfg["device"]
        for k in ("identifiers", "name", "model", "sw_version", "manufacturer"):
            if not d.get(k):
                sys.exit("FAIL: %s device lacks %s: %s" % (name, k, d))
        if cfg["availability_topic"] != "darkmode-kiosk/%s/availability" % kid:
            sys.exit("FAIL: %s availability_topic %s" % (name, cfg["availability_topic"]))
        if cfg["state_topic"] != "darkmode-kiosk/%s/state" % kid:
            sys.exit("FAIL: %s state_topic %s" % (name, cfg["state_topic"]))
    if sel["options"] != ["system", "light", "dark"] or sel["command_topic"] != "darkmode-kiosk/%s/appearance/set" % kid:
        sys.exit("FAIL: select options/command_topic: %s" % sel)
    if sel["device"] != bs["device"] or sel["unique_id"] == bs["unique_id"]:
        sys.exit("FAIL: the two configs are not one device with two entities")
    if (bs["payload_on"], bs["payload_off"]) != ("dark", "light"):
        sys.exit("FAIL: binary_sensor payloads %s/%s" % (bs["payload_on"], bs["payload_off"]))
    sw = got.get("%s/switch/%s/display/config" % (prefix, kid))
    if not sw:
        sys.exit("FAIL: no switch config for the display: %s" % sorted(got))
    sw = json.loads(sw)
    for k in ("command_topic", "state_topic", "value_template", "payload_on", "payload_off", "state_on", "state_off",
              "unique_id", "availability_topic", "device"):
        if k not in sw:
            sys.exit("FAIL: switch config lacks %s: %s" % (k, sw))
    if sw["command_topic"] != "darkmode-kiosk/%s/display/set" % kid or sw["device"] != sel["device"] \
            or (sw["payload_on"], sw["payload_off"], sw["state_on"], sw["state_off"]) != ("on", "sleep", "on", "asleep"):
        sys.exit("FAIL: switch config: %s" % sw)
    print("discovery ok select+binary_sensor+switch model=%s sw_version=%s" % (sel["device"]["model"], sel["device"]["sw_version"]))


def wait_states(c_topics, key, value, secs, before=None):
    """Subscribes to the state topics; returns {topic: monotonic time when KEY == VALUE}."""
    done = {}

    def on_message(c, u, m):
        try:
            d = json.loads(m.payload)
        except ValueError:
            return
        if str(d.get(key)) == value and m.topic not in done:
            done[m.topic] = time.monotonic()

    c = connect(on_message, c_topics)
    return c, done


def main(argv):
    cmd = argv[0]
    if cmd == "discovery":
        discovery(argv[1])
    elif cmd == "no-discovery":
        prefix = os.environ.get("DISCOVERY_PREFIX", "homeassistant")
        got = {t: p for t, p in retained(["%s/+/%s/+/config" % (prefix, argv[1])]).items() if p}
        if got:
            sys.exit("FAIL: discovery configs still retained: %s" % sorted(got))
        print("discovery none")
    elif cmd == "retained":
        got = retained([argv[1]])
        print("retained %s" % (got[argv[1]].decode() if argv[1] in got else "<none>"))
    elif cmd == "wait":
        topic, key, value, secs = argv[1], argv[2], argv[3], float(argv[4])
        c, done = wait_states([topic], key, value, secs)
        deadline = time.monotonic() + secs
        while topic not in done and time.monotonic() < deadline:
            time.sleep(0.01)
        c.loop_stop()
        c.disconnect()
        if topic not in done:
            sys.exit("FAIL: %s: %s never %s within %s s" % (topic, key, value, secs))
        print("state %s=%s" % (key, value))
    elif cmd == "command":
        topic, payload, key, value = argv[1:5]
        states = argv[5:]
        c, done = wait_states(states, key, value, 5)
        time.sleep(0.3)  # the retained states first
        done.clear()
        t0 = time.monotonic()
        c.publish(topic, payload, qos=1)
        while len(done) < len(states) and time.monotonic() < t0 + 5:
            time.sleep(0.002)
        c.loop_stop()
        c.disconnect()
        if len(done) < len(states):
            sys.exit("FAIL: %d of %d states reached %s=%s within 5 s" % (len(done), len(states), key, value))
        print("command slowest %.3f s fastest %.3f s" % (max(done.values()) - t0, min(done.values()) - t0))
    elif cmd == "watch":
        topic, secs = argv[1], float(argv[2])
        def on_message(c, u, m):
            d = json.loads(m.payload)
            print("at %.6f %s %s" % (time.clock_gettime(time.CLOCK_MONOTONIC), d.get("preference"), d.get("shown")), flush=True)
        c = connect(on_message, [topic])
        time.sleep(secs)
        c.loop_stop()
    elif cmd == "times":
        count, topic, state = int(argv[1]), argv[2], argv[3]
        last = {}
        def on_message(c, u, m):
            d = json.loads(m.payload)
            last["v"] = (d.get("preference"), time.monotonic())
        c = connect(on_message, [state])
        time.sleep(0.3)
        times = []
        # Start with the opposite of the retained state's preference: every command changes it.
        first = "light" if last.get("v", ("system",))[0] == "dark" else "dark"
        for i in range(count):
            want = first if i % 2 == 0 else ("light" if first == "dark" else "dark")
            t0 = time.monotonic()
            c.publish(topic, want, qos=1)
            while time.monotonic() < t0 + 2:
                v = last.get("v")
                if v and v[0] == want and v[1] >= t0:
                    times.append((v[1] - t0) * 1000)
                    break
                time.sleep(0.0005)
            else:
                sys.exit("FAIL: command %d (%s) got no state within 2 s" % (i, want))
        c.loop_stop()
        times.sort()
        print("times n=%d p50 %.1f ms p99 %.1f ms" % (len(times), times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.99))]))
    elif cmd == "mixed":
        topic, secs, rate = argv[1], float(argv[2]), int(argv[3])
        c = connect()
        bad = [b"bogus", b"DARK", b"x" * 2048, bytes([0xff, 0xfe, 0x00]), b"", b"darkness"]
        good = [b"light", b"dark"]
        n = valid = 0
        last = None
        t0 = time.monotonic()
        while time.monotonic() < t0 + secs:
            for _ in range(rate // 100):
                if n % 2 == 0:
                    last = good[valid % 2]
                    valid += 1
                    c.publish(topic, last, qos=0)
                else:
                    c.publish(topic, bad[(n // 2) % len(bad)], qos=0)
                n += 1
            time.sleep(max(0, t0 + n / rate - time.monotonic()))
        # The last word: valid, and at QoS 1 (a QoS 0 message may be dropped under a flood;
        # this one is not, and the broker keeps the order of one client's messages).
        last = good[valid % 2]
        valid += 1
        c.publish(topic, last, qos=1).wait_for_publish()
        n += 1
        time.sleep(0.5)
        c.loop_stop()
        print("mixed sent %d valid %d last %s in %.1f s" % (n, valid, last.decode(), time.monotonic() - t0))
    elif cmd == "flood":
        topic, secs, rate = argv[1], float(argv[2]), int(argv[3])
        c = connect()
        bad = [b"bogus", b"DARK", b"x" * 2048, bytes([0xff, 0xfe, 0x00]), b"", b"darkness"]
        n = 0
        t0 = time.monotonic()
        while time.monotonic() < t0 + secs:
            for _ in range(rate // 100):
                c.publish(topic, bad[n % len(bad)], qos=0)
                n += 1
            time.sleep(max(0, t0 + n / rate - time.monotonic()))
        time.sleep(0.5)
        c.loop_stop()
        print("flood sent %d in %.1f s" % (n, time.monotonic() - t0))
    else:
        sys.exit("unknown command %s" % cmd)


if __name__ == "__main__":
    main(sys.argv[1:])
