"""The planted-culprit scenarios, written by hand: one wrong fact, the answer that relies on it.

Every scenario lists the sources an agent saw, in the order it saw them. Exactly one, marked with
``planted(...)``, carries the wrong fact the final answer repeats (in its own words, as models do);
the others are distractors, several on the same topic. Kinds: ``tool`` (a tool result), ``fact``
(an injected fact), ``rag`` (a retrieved document), ``memory``, ``instructions``/``steering``/``skill``
(system-prompt lines) and ``llm`` (an earlier LLM call's output). The texts were written for
variety of domain and wording, and frozen before any ranking was tuned; do not edit them to suit
a scorer.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class Source:
    kind: str
    name: str
    text: str
    args: dict[str, Any] = field(default_factory=dict)
    thought: str = ""
    planted: bool = False


@dataclass(frozen=True)
class Scenario:
    id: str
    domain: str
    question: str
    sources: tuple[Source, ...]
    answer: str

    @property
    def culprit(self) -> int:
        return next(i for i, s in enumerate(self.sources) if s.planted)

    def validate(self) -> None:
        marked = [s for s in self.sources if s.planted]
        assert len(marked) == 1, f"{self.id}: exactly one planted source"
        assert 3 <= len(self.sources) - 1 <= 8, f"{self.id}: 3-8 distractors"
        names = [(s.kind == "tool", s.name) for s in self.sources if s.kind != "llm"]
        assert len(names) == len(set(names)), f"{self.id}: duplicate source names"


def tool(name: str, text: str, thought: str = "", **args: Any) -> Source:
    return Source("tool", name, text, args=args, thought=thought)


def fact(name: str, text: str) -> Source:
    return Source("fact", name, text)


def rag(name: str, text: str) -> Source:
    return Source("rag", name, text)


def memory(name: str, text: str) -> Source:
    return Source("memory", name, text)


def instructions(name: str, text: str) -> Source:
    return Source("instructions", name, text)


def steering(name: str, text: str) -> Source:
    return Source("steering", name, text)


def skill(name: str, text: str) -> Source:
    return Source("skill", name, text)


def llm(text: str) -> Source:
    return Source("llm", "", text)


def planted(src: Source) -> Source:
    return replace(src, planted=True)


S = Scenario

SCENARIOS: list[Scenario] = [
    S(
        "retail-return-window",
        "retail",
        "Can I still return the espresso machine I bought in early March?",
        (
            tool(
                "lookup_order",
                "Order 88213 — EM-200 espresso machine, delivered 4 March, paid by Visa, "
                "status: delivered.",
                order_id="88213",
            ),
            planted(
                fact(
                    "returns-appliances",
                    "Small kitchen appliances may be returned up to 90 days after delivery.",
                )
            ),
            rag(
                "kb:em200-warranty",
                "The EM-200 ships with a two-year manufacturer warranty that covers pump and "
                "heater failures but not descaling damage.",
            ),
            instructions("tone", "Keep answers short and friendly; never promise refunds."),
            memory("memory:contact-pref", "The customer asked to be contacted by email only."),
            rag(
                "kb:returns-general",
                "Opened items must be returned with all accessories and the original receipt.",
            ),
            fact("restocking", "Large furniture returns carry a 15% restocking fee."),
            tool(
                "store_locator",
                "Nearest store with a returns desk: Westfield Mall, open until 8 pm.",
                near="home",
            ),
        ),
        "Yes — kitchen appliances can come back within 90 days of delivery, and your EM-200 "
        "arrived on 4 March, so you are well inside the window.",
    ),
    S(
        "airline-baggage",
        "travel",
        "How many checked bags are included on my flight to Lisbon?",
        (
            tool(
                "get_booking",
                "PNR QX7T2L: LHR→LIS, 14 June, fare family Economy Light, 1 passenger (M. Okafor).",
                pnr="QX7T2L",
            ),
            planted(
                tool(
                    "fare_rules",
                    "Economy Light: 2 checked bags of 23 kg included; seat selection charged.",
                    fare="Economy Light",
                )
            ),
            rag(
                "doc:cabin-baggage",
                "Cabin baggage: one bag up to 10 kg plus a small personal item under the seat.",
            ),
            fact(
                "lisbon-airport", "Lisbon Humberto Delgado airport terminal 1 handles our flights."
            ),
            instructions("persona", "You are Skyways' booking assistant."),
        ),
        "Your Economy Light fare on QX7T2L includes two checked bags, each up to 23 kg.",
    ),
    S(
        "bank-wire-cutoff",
        "banking",
        "If I send an international wire this afternoon, when will it go out?",
        (
            rag(
                "kb:wires-intl",
                "International wires are processed on business days. Fees: $35 outgoing, "
                "$15 incoming.",
            ),
            planted(
                steering(
                    "ops-cutoff",
                    "Operations note: the same-day cutoff for international wires is 6:30 pm "
                    "Eastern.",
                )
            ),
            fact(
                "holiday-calendar", "The bank is closed on federal holidays; next is 11 November."
            ),
            tool(
                "account_summary",
                "Checking ****4410: available balance $12,480.22; no holds.",
                account="4410",
            ),
            memory("memory:last-wire", "Last month the customer wired funds to a Portuguese IBAN."),
        ),
        "Wires submitted before 6:30 pm Eastern go out the same day, so an afternoon wire "
        "today will be sent today (the fee is $35).",
    ),
    S(
        "insurance-water-damage",
        "insurance",
        "My basement flooded after a pipe burst. Is that covered by my home policy?",
        (
            tool(
                "get_policy",
                "Policy HO-3 #5521907, dwelling limit $420,000, deductible $1,000, active "
                "since 2021.",
                policy="5521907",
            ),
            rag(
                "doc:flood-exclusion",
                "Flood caused by surface water, rising rivers or storm surge is excluded from "
                "HO-3 policies.",
            ),
            planted(
                rag(
                    "doc:sudden-discharge",
                    "Sudden and accidental discharge of water from plumbing is excluded unless "
                    "the optional water-backup rider was purchased.",
                )
            ),
            tool(
                "list_riders",
                "Riders on #5521907: scheduled jewelry ($8,000). No other riders.",
                policy="5521907",
            ),
            instructions("claims-voice", "Be empathetic; explain next steps for filing a claim."),
        ),
        "I'm sorry about the flooding. Unfortunately a burst pipe isn't covered on your policy: "
        "water released from plumbing needs the water-backup rider, and you only have the "
        "jewelry rider.",
    ),
    S(
        "hr-parental-leave",
        "hr",
        "How many weeks of paid parental leave do I get as a secondary caregiver?",
        (
            rag(
                "handbook:leave-overview",
                "Employees may take unpaid family leave of up to 12 weeks under FMLA.",
            ),
            planted(
                fact(
                    "leave-2026-update",
                    "From 2026, secondary caregivers receive 16 weeks of fully paid parental "
                    "leave.",
                )
            ),
            fact("leave-primary", "Primary caregivers receive 20 weeks of paid leave."),
            memory("memory:employee", "The employee is based in the Denver office, hired 2023."),
            tool(
                "get_employee",
                "E-20931 Priya Natarajan, Engineering, full-time, eligible for benefits.",
                employee="E-20931",
            ),
        ),
        "As a secondary caregiver you're entitled to sixteen weeks of paid parental leave, "
        "at full pay.",
    ),
    S(
        "it-vpn-error",
        "it-support",
        "The VPN client keeps failing with error 809. What should I do?",
        (
            rag(
                "kb:vpn-install",
                "Install the GlobalConnect client from the Software Center, then sign in with "
                "your SSO account.",
            ),
            planted(
                llm(
                    "Diagnosis: error 809 means the user's SSO password has expired; a password "
                    "reset will fix it."
                )
            ),
            tool(
                "device_status",
                "Laptop LT-4471: Windows 11 23H2, GlobalConnect 5.2.1, last check-in 2 hours ago.",
                device="LT-4471",
            ),
            rag(
                "kb:vpn-errors",
                "Common VPN errors: 691 (bad credentials), 720 (no protocol), 812 (policy).",
            ),
            instructions("it-tone", "Give step-by-step instructions, numbered."),
        ),
        "1. Error 809 means your SSO password has expired. 2. Reset it at the password portal. "
        "3. Reconnect GlobalConnect with the new password.",
    ),
    S(
        "pharmacy-refill",
        "healthcare",
        "When can I pick up my refill of lisinopril?",
        (
            tool(
                "get_prescription",
                "Rx 7720194 lisinopril 10 mg, 30 tablets, refills remaining: 2, last fill "
                "3 October.",
                rx="7720194",
            ),
            planted(
                tool(
                    "refill_status",
                    "Refill for Rx 7720194: ready for pickup Friday after 2 pm at the Elm Street "
                    "store.",
                    rx="7720194",
                )
            ),
            rag(
                "doc:pickup-hours",
                "Pharmacy counters are open 9 am – 9 pm on weekdays and 10 am – 6 pm on weekends.",
            ),
            fact("store-move", "The Main Street pharmacy closed; its patients moved to Oak Plaza."),
            instructions("no-advice", "Do not give dosing advice; refer clinical questions."),
        ),
        "Your lisinopril refill will be ready on Friday from 2 pm, at our Elm Street location.",
    ),
    S(
        "saas-seat-price",
        "saas-billing",
        "What would 8 seats on the Team plan cost per month?",
        (
            planted(
                instructions(
                    "pricing-sheet",
                    "Pricing reference: Team plan $12 per seat per month billed monthly; "
                    "Business plan $25.",
                )
            ),
            rag(
                "doc:plans-compare",
                "Team includes shared workspaces, SSO add-on and 100 GB storage per seat.",
            ),
            tool(
                "get_subscription",
                "Workspace acme-design: Free plan, 5 members, created 2024-02-11.",
                workspace="acme-design",
            ),
            fact("annual-discount", "Annual billing saves 20 percent on every paid plan."),
            memory("memory:sales-note", "The customer mentioned they may grow to 15 people."),
        ),
        "Eight seats on Team come to $96 a month ($12 per seat) on monthly billing.",
    ),
    S(
        "devops-deploy-freeze",
        "devops",
        "Can we deploy the payments service to production tomorrow?",
        (
            tool(
                "ci_status",
                "payments-svc main@4be19c2: build passed, 412 tests green, canary healthy.",
                service="payments-svc",
            ),
            rag(
                "runbook:deploy",
                "Production deploys require a green canary and an approved change ticket.",
            ),
            planted(
                tool(
                    "change_calendar",
                    "No freeze windows scheduled this month; next freeze begins 20 December.",
                    month="current",
                )
            ),
            fact("oncall", "This week's on-call for payments is Tomasz Wójcik."),
            llm("Plan: check CI, then the change calendar, then confirm the ticket."),
            instructions("sre-style", "Answer as an SRE assistant; cite the checks you used."),
        ),
        "Yes. CI is green on 4be19c2 and there is no deployment freeze until 20 December, so "
        "tomorrow is open — just make sure the change ticket is approved.",
    ),
    S(
        "legal-notice-period",
        "legal",
        "How much notice do I need to give to terminate our supplier agreement?",
        (
            tool(
                "find_contract",
                "MSA-2022-118 with Halvorsen Components AS, signed 1 March 2022, renews yearly.",
                party="Halvorsen",
            ),
            planted(
                rag(
                    "contract:msa-118-s14",
                    "Clause 14.2: either party may terminate for convenience with fourteen days' "
                    "written notice.",
                )
            ),
            rag(
                "contract:msa-118-s9",
                "Clause 9: invoices are payable within 45 days; late payments accrue 1.5% "
                "monthly interest.",
            ),
            instructions("legal-disclaimer", "Remind users this is not legal advice."),
            fact("legal-contact", "Questions about supplier contracts go to legal-ops@acme.test."),
        ),
        "Under clause 14.2 you can end the Halvorsen MSA for convenience by giving two weeks' "
        "written notice. (This isn't legal advice.)",
    ),
    S(
        "tax-filing-deadline",
        "tax",
        "When is my quarterly estimated tax payment due?",
        (
            planted(
                memory(
                    "memory:tax-dates",
                    "Saved note: Q3 estimated tax is due on 30 September this year.",
                )
            ),
            rag(
                "irs:estimated-overview",
                "Self-employed people generally pay estimated tax four times a year using "
                "Form 1040-ES.",
            ),
            tool(
                "get_profile",
                "Filer: sole proprietor, Oregon, uses cash accounting, prior-year tax $9,400.",
                user="me",
            ),
            fact("safe-harbor", "Paying 100% of last year's tax avoids the underpayment penalty."),
        ),
        "Your next quarterly estimated payment (Q3) is due on September 30.",
    ),
    S(
        "hotel-checkin",
        "hospitality",
        "What time can I check in at the hotel in Kyoto?",
        (
            tool(
                "get_reservation",
                "Confirmation 55-KY-0912: Hotel Kamo Riverside, 2 nights from 18 April, twin room.",
                conf="55-KY-0912",
            ),
            rag(
                "doc:kamo-amenities",
                "Hotel Kamo Riverside offers a public bath, luggage storage and bicycle rental.",
            ),
            planted(
                tool(
                    "property_info",
                    "Hotel Kamo Riverside: check-in from 11:00, check-out by 10:00, front desk "
                    "24 h.",
                    hotel="Kamo Riverside",
                )
            ),
            fact("kyoto-festival", "Aoi Matsuri takes place in Kyoto on 15 May."),
            memory("memory:traveller", "The traveller is arriving by Shinkansen from Tokyo."),
        ),
        "You can check in at Hotel Kamo Riverside from 11 am on 18 April.",
    ),
    S(
        "car-rental-age",
        "travel",
        "I'm 23 — can I rent a car in Denver without a young-driver fee?",
        (
            rag(
                "doc:rental-requirements",
                "Renters need a valid licence held for at least one year and a credit card "
                "in their name.",
            ),
            planted(
                fact(
                    "young-driver-policy",
                    "The young-driver surcharge applies only to renters under 21.",
                )
            ),
            tool(
                "search_cars",
                "Denver Airport, 3 days: compact $41/day, midsize $48/day, SUV $67/day.",
                location="DEN",
            ),
            instructions("upsell", "Mention the insurance package when relevant."),
            fact("den-shuttle", "Rental shuttles leave Denver Airport's level 5 every 10 minutes."),
        ),
        "Yes, at 23 you won't pay a young-driver fee — that surcharge only applies to drivers "
        "younger than 21. A compact is $41 a day.",
    ),
    S(
        "restaurant-allergen",
        "food",
        "Does the pesto pasta on your menu contain nuts?",
        (
            tool(
                "menu_item",
                "Trofie al pesto — basil, parmesan, olive oil, garlic, trofie pasta. €16.",
                item="trofie al pesto",
            ),
            planted(
                llm(
                    "Kitchen check: our pesto is made nut-free — we replaced pine nuts with "
                    "sunflower seeds last spring."
                )
            ),
            rag(
                "doc:allergen-policy",
                "Allergen information is provided per dish; cross-contact cannot be ruled out.",
            ),
            fact("gluten-free", "Gluten-free pasta is available for any dish for €2 extra."),
            instructions("allergy-care", "Always recommend telling staff about allergies."),
        ),
        "No — our pesto contains no nuts; the kitchen uses sunflower seeds instead of pine nuts. "
        "Please still tell your server about any allergy.",
    ),
    S(
        "telecom-roaming",
        "telecom",
        "Will I be charged for data when I travel to Canada on my plan?",
        (
            tool(
                "get_plan",
                "Line 555-0142: Unlimited Plus, autopay on, device iPhone 15.",
                line="555-0142",
            ),
            planted(
                rag(
                    "doc:unlimited-plus-roaming",
                    "Unlimited Plus includes data, talk and text in Canada and Mexico at no "
                    "extra cost.",
                )
            ),
            rag(
                "doc:travelpass",
                "TravelPass gives your domestic allowance abroad for $12 per day in over 200 "
                "countries.",
            ),
            memory("memory:bill-dispute", "Customer disputed a roaming charge from Spain in 2024."),
            instructions("carrier-voice", "Keep responses under 60 words."),
        ),
        "No extra charge: your Unlimited Plus plan covers data in Canada at no additional cost.",
    ),
    S(
        "gym-cancellation",
        "fitness",
        "How do I cancel my gym membership and is there a fee?",
        (
            tool(
                "get_membership",
                "Member 30417, Peak Fitness Midtown, 12-month contract started 5 January, "
                "$39/month.",
                member="30417",
            ),
            planted(
                steering(
                    "retention-script",
                    "Cancellation terms: members can cancel online at any time with no early "
                    "termination fee.",
                )
            ),
            rag(
                "doc:freeze",
                "Memberships can be frozen for up to 3 months a year for a $5 monthly hold fee.",
            ),
            fact("class-schedule", "Spin classes run at 6 am and 7 pm on weekdays."),
            llm("Member wants to cancel; check the contract and the fee rules."),
        ),
        "You can cancel online whenever you like and there's no early termination fee, even "
        "though your 12-month contract started in January.",
    ),
    S(
        "logistics-eta",
        "logistics",
        "When will pallet shipment PX-2281 reach the Rotterdam warehouse?",
        (
            tool(
                "track_shipment",
                "PX-2281: departed Hamburg depot 09:40, in transit by road, 18 pallets.",
                shipment="PX-2281",
            ),
            planted(
                tool(
                    "route_estimate",
                    "Estimated arrival at Rotterdam DC-3: Thursday 16:00 (route A7/A1, no delays "
                    "reported).",
                    shipment="PX-2281",
                )
            ),
            rag(
                "doc:dc3-receiving",
                "Rotterdam DC-3 receives inbound pallets 06:00–22:00; book a dock slot 24 h ahead.",
            ),
            fact("customs", "Shipments within the EU need no customs declaration."),
            instructions("ops-format", "Answer with ETA first, then details."),
            memory("memory:carrier", "Carrier for this lane is Nordhav Logistics."),
        ),
        "ETA Thursday at 16:00 at Rotterdam DC-3. PX-2281 left Hamburg this morning with 18 "
        "pallets.",
    ),
    S(
        "university-prereq",
        "education",
        "Can I enroll in Machine Learning II next term?",
        (
            tool(
                "transcript",
                "Student 2219034: Linear Algebra (A-), Probability (B+), Machine Learning I "
                "(in progress).",
                student="2219034",
            ),
            planted(
                rag(
                    "catalog:cs4420",
                    "CS 4420 Machine Learning II — prerequisites: Linear Algebra and Probability. "
                    "No other courses required.",
                )
            ),
            rag(
                "catalog:cs3410",
                "CS 3410 Machine Learning I — prerequisites: Programming II and Probability.",
            ),
            fact("registration", "Registration for next term opens on 4 November at 8 am."),
            instructions("advisor-tone", "Encourage students to confirm with their advisor."),
        ),
        "Yes — Machine Learning II only requires Linear Algebra and Probability, which you've "
        "passed, so you can enroll when registration opens.",
    ),
    S(
        "mortgage-rate",
        "finance",
        "What rate would I get on a 30-year fixed mortgage today?",
        (
            rag(
                "doc:mortgage-basics",
                "Fixed-rate mortgages keep the same interest rate for the whole term.",
            ),
            tool(
                "credit_profile",
                "Applicant: credit score 768, DTI 31%, down payment 20%.",
                applicant="self",
            ),
            planted(
                tool(
                    "rate_sheet",
                    "Today's rates — 30-yr fixed 4.125% APR, 15-yr fixed 3.50%, 5/1 ARM 5.90%.",
                    date="today",
                )
            ),
            fact("points", "Each discount point costs 1% of the loan and lowers the rate ~0.25%."),
            instructions("compliance", "Rates are estimates and subject to approval."),
            memory("memory:home", "Buyer is looking at homes around $450,000."),
            rag(
                "doc:arm-explainer",
                "An adjustable-rate mortgage starts lower but can reset after the fixed period.",
            ),
            fact("lock", "Rate locks are free for 45 days."),
        ),
        "With a 768 score and 20% down, today's 30-year fixed is about 4.125% APR (an estimate, "
        "subject to approval).",
    ),
    S(
        "museum-hours",
        "culture",
        "Is the science museum open on Monday?",
        (
            planted(
                fact(
                    "museum-hours-2026",
                    "The Harbor Science Museum is open daily, including Mondays, 10 am to 5 pm.",
                )
            ),
            rag(
                "doc:museum-tickets",
                "Harbor Science Museum tickets: adults $22, children $14, members free.",
            ),
            tool(
                "events_calendar",
                "Upcoming: planetarium show 'Deep Field' Saturdays at 2 pm; robotics "
                "workshop Sunday.",
                venue="harbor-science",
            ),
            memory("memory:family", "The user is visiting with two children aged 7 and 10."),
        ),
        "Yes, it's open on Mondays — the Harbor Science Museum opens every day from 10 to 5.",
    ),
    S(
        "transit-night-bus",
        "transit",
        "Is there a bus from the airport to downtown after midnight?",
        (
            tool(
                "trip_planner",
                "Airport → Downtown: Express 100 every 15 min 05:00–23:30; journey 35 min.",
                origin="airport",
                dest="downtown",
            ),
            planted(
                llm(
                    "Summary of the night network: route N100 runs from the airport to downtown "
                    "hourly all night."
                )
            ),
            rag(
                "doc:fares",
                "Single fare $2.75; airport supplement $5; day pass $12.",
            ),
            fact("strike", "A partial rail strike affects the Green Line this weekend."),
            instructions("transit-tone", "Mention fares when suggesting routes."),
        ),
        "Yes — after midnight the N100 night bus runs hourly from the airport to downtown "
        "(fare $2.75 plus the $5 airport supplement).",
    ),
    S(
        "vet-vaccine",
        "veterinary",
        "Is my dog due for her rabies shot?",
        (
            tool(
                "pet_record",
                "Patient: Juniper (dog, 4 y). Rabies vaccine given 12 June 2025, 3-year product.",
                pet="Juniper",
            ),
            planted(
                instructions(
                    "clinic-protocol",
                    "Clinic protocol: rabies boosters are due every 12 months for all dogs, "
                    "regardless of product.",
                )
            ),
            rag(
                "doc:dhpp",
                "DHPP boosters are given every three years after the puppy series.",
            ),
            fact("clinic-closure", "The clinic is closed on 24–26 December."),
            memory("memory:owner", "Owner prefers Saturday appointments."),
        ),
        "Yes — boosters are due yearly and Juniper's last rabies shot was in June 2025, so she's "
        "due now. Shall I book a Saturday?",
    ),
    S(
        "api-rate-limit",
        "software",
        "What is the rate limit for the search API on the free tier?",
        (
            rag(
                "docs:auth",
                "Authenticate with a bearer token in the Authorization header.",
            ),
            planted(
                rag(
                    "docs:limits",
                    "Free tier: 5,000 search requests per minute per key; paid tiers are "
                    "unlimited.",
                )
            ),
            rag(
                "docs:pagination",
                "Search results are paginated with a cursor; the page size is at most 100.",
            ),
            tool(
                "get_api_key",
                "Key sk-live-…9f2: tier free, created 2025-08-01, scopes search:read.",
                key="current",
            ),
            fact("status", "The search API had a partial outage on 3 November, now resolved."),
        ),
        "On the free tier your key can make up to 5,000 search requests every minute.",
    ),
    S(
        "security-cve",
        "security",
        "Is our nginx version affected by CVE-2026-1187?",
        (
            tool(
                "inventory",
                "web-01..web-06 run nginx 1.25.3; web-07 runs nginx 1.27.1.",
                service="nginx",
            ),
            planted(
                tool(
                    "cve_lookup",
                    "CVE-2026-1187: affects nginx 1.27.0 and later; versions before 1.27 are not "
                    "vulnerable.",
                    cve="CVE-2026-1187",
                )
            ),
            rag(
                "doc:patch-policy",
                "Critical vulnerabilities must be patched within 7 days of disclosure.",
            ),
            fact("scanner", "The weekly vulnerability scan runs Sundays at 02:00 UTC."),
            llm("I'll check the inventory, then the CVE record."),
            rag(
                "advisory:nginx-2025",
                "nginx security advisory: HTTP/3 module memory disclosure fixed in 1.25.4.",
            ),
            fact("waf", "All web servers sit behind the edge WAF with managed rules enabled."),
            tool(
                "ticket_search",
                "Open tickets mentioning nginx: SEC-412 'upgrade web fleet to 1.27' (backlog).",
                query="nginx",
            ),
        ),
        "Only web-07 (nginx 1.27.1) is affected; web-01 to web-06 run 1.25.3, which predates "
        "the vulnerable range.",
    ),
    S(
        "loyalty-points",
        "retail",
        "How many loyalty points do I need for a free coffee?",
        (
            tool(
                "points_balance",
                "Member 7781-2201: 340 points, tier Silver.",
                member="7781-2201",
            ),
            fact("double-points", "Double points on pastries every Tuesday."),
            planted(
                memory(
                    "memory:rewards-chat",
                    "In a previous chat the member was told a free drink costs 300 points.",
                )
            ),
            rag(
                "doc:tiers",
                "Silver members earn 10 points per dollar; Gold members earn 15.",
            ),
            instructions("barista-voice", "Be upbeat and brief."),
        ),
        "A free coffee is 300 points — with 340 you already have enough!",
    ),
    S(
        "utility-outage",
        "utilities",
        "Why is the power out on Birch Lane and when will it be back?",
        (
            planted(
                tool(
                    "outage_map",
                    "Outage #OT-5519 Birch Lane area: cause scheduled maintenance, restoration "
                    "estimate 3:00 pm.",
                    area="Birch Lane",
                )
            ),
            tool(
                "account_lookup",
                "Service address 14 Birch Lane, account 99-3312-07, no arrears.",
                address="14 Birch Lane",
            ),
            rag(
                "doc:storm-prep",
                "During storms, report downed lines by phone; never approach them.",
            ),
            fact("crew-count", "Forty repair crews are working across the county today."),
            tool(
                "outage_history",
                "Birch Lane area: 2 unplanned outages this year (tree contact, transformer).",
                area="Birch Lane",
            ),
            rag("doc:credits", "Outages longer than 24 hours qualify for a $25 bill credit."),
            instructions("utility-voice", "Apologize for the inconvenience."),
        ),
        "Sorry for the trouble — the Birch Lane outage is planned maintenance, and power should "
        "be restored around 3 pm.",
    ),
    S(
        "recipe-oven-temp",
        "cooking",
        "What oven temperature should I use for the sourdough recipe?",
        (
            rag(
                "recipe:sourdough-ingredients",
                "500 g bread flour, 350 g water, 100 g levain, 10 g salt.",
            ),
            planted(
                rag(
                    "recipe:sourdough-bake",
                    "Bake covered at 180 °C for 20 minutes, then uncovered for 25 minutes.",
                )
            ),
            rag(
                "recipe:sourdough-proof",
                "Bulk ferment 4–5 hours, shape, then cold-proof overnight in the fridge.",
            ),
            memory("memory:oven", "The user has a fan oven that runs hot."),
            skill("metric-units", "Use metric units unless the user asks otherwise."),
        ),
        "Bake it at 180 °C: 20 minutes with the lid on, then another 25 uncovered.",
    ),
    S(
        "sports-fixture",
        "sports",
        "When do Riverside FC play their next home match?",
        (
            tool(
                "fixtures",
                "Riverside FC next matches: away at Dunmore (Sat 14:00), home vs Calder "
                "(see ticketing).",
                team="Riverside FC",
            ),
            planted(
                tool(
                    "ticketing",
                    "Riverside FC vs Calder Town — Stadium Park, Wednesday 19:45, tickets from £18.",
                    match="RFC-CAL",
                )
            ),
            fact("stadium-works", "The north stand at Stadium Park is closed for repairs."),
            rag("doc:season-ticket", "Season tickets cover all 19 league home matches."),
            memory("memory:fan", "The user is a season-ticket holder in block C."),
            tool(
                "league_table",
                "Table: Riverside FC 3rd (41 pts), Calder Town 7th (33 pts), Dunmore 12th.",
                league="Championship",
            ),
            rag("doc:stadium-travel", "Stadium Park is a 10-minute walk from Riverside station."),
            fact("kickoff-change", "The Dunmore away match kick-off moved to 12:30 for TV."),
        ),
        "Their next home game is against Calder Town on Wednesday at 7:45 pm at Stadium Park.",
    ),
    S(
        "crypto-withdrawal",
        "finance",
        "Why hasn't my bitcoin withdrawal arrived yet?",
        (
            tool(
                "withdrawal_status",
                "Withdrawal W-88120: 0.05 BTC to bc1q…7ek, status: broadcast, 1 confirmation.",
                withdrawal="W-88120",
            ),
            planted(
                llm(
                    "Reading the status: the exchange requires 12 network confirmations before "
                    "a withdrawal is final."
                )
            ),
            rag(
                "doc:withdrawal-fees",
                "Bitcoin withdrawals carry a network fee of 0.0001 BTC.",
            ),
            fact("maintenance", "Ethereum deposits are paused for wallet maintenance."),
            instructions("crypto-risk", "Never ask for private keys or seed phrases."),
        ),
        "Your 0.05 BTC withdrawal has been broadcast but has only 1 of the 12 confirmations "
        "needed, so it isn't final yet.",
    ),
    S(
        "library-loan",
        "library",
        "How long can I keep the e-book I just borrowed?",
        (
            tool(
                "loans",
                "Loan: 'The Salt Road' (e-book), borrowed today, format EPUB.",
                patron="self",
            ),
            rag(
                "doc:print-loans",
                "Print books are loaned for 3 weeks and can be renewed twice.",
            ),
            planted(
                fact(
                    "ebook-loan-period",
                    "E-book loans last 7 days and cannot be renewed.",
                )
            ),
            fact("holds", "Popular e-books may have a waiting list for holds."),
            skill("library-voice", "Friendly librarian voice."),
        ),
        "You can keep 'The Salt Road' for a week; e-book loans can't be renewed, so finish it "
        "within 7 days.",
    ),
    S(
        "real-estate-hoa",
        "real-estate",
        "What is the monthly HOA fee for the condo on Alder Street?",
        (
            tool(
                "listing",
                "MLS 24-77102: 2 bed / 2 bath condo, 1,020 sq ft, 311 Alder St #4B, list $389,000.",
                mls="24-77102",
            ),
            planted(
                tool(
                    "hoa_details",
                    "Alder Commons HOA: monthly dues $215, includes water, trash and exterior "
                    "insurance.",
                    hoa="Alder Commons",
                )
            ),
            rag(
                "doc:property-tax",
                "County property tax is about 1.1% of assessed value per year.",
            ),
            memory("memory:buyer", "Buyer has a pre-approval up to $420,000."),
            fact("open-house", "An open house for #4B is on Sunday 1–3 pm."),
        ),
        "The HOA dues at Alder Commons are $215 per month, which covers water, trash and "
        "exterior insurance.",
    ),
    S(
        "energy-solar",
        "energy",
        "How much will the solar panels save me per year?",
        (
            tool(
                "usage_history",
                "Annual consumption 9,800 kWh; average rate $0.21/kWh.",
                account="self",
            ),
            planted(
                llm(
                    "Estimate: a 7 kW system here produces about 14,500 kWh a year, covering the "
                    "whole bill with surplus."
                )
            ),
            rag(
                "doc:net-metering",
                "Net metering credits surplus generation at the retail rate, rolling over monthly.",
            ),
            fact("incentive", "A 30% federal tax credit applies to residential solar."),
            instructions("energy-voice", "Give numbers with units."),
        ),
        "About 14,500 kWh a year from a 7 kW array — more than your 9,800 kWh use — so it would "
        "wipe out your roughly $2,060 yearly bill, with credit left over.",
    ),
    S(
        "permit-fence",
        "government",
        "Do I need a permit to build a fence in my backyard?",
        (
            planted(
                rag(
                    "code:fences",
                    "Residential fences up to 8 feet tall do not require a building permit.",
                )
            ),
            rag(
                "code:setbacks",
                "Structures must be set back 5 feet from side property lines.",
            ),
            tool(
                "parcel",
                "Parcel 042-118-09: zoning R-1, corner lot, no historic overlay.",
                parcel="042-118-09",
            ),
            fact("office-hours", "The permit office is open Monday to Thursday, 8 am to 4 pm."),
            instructions("gov-tone", "Use plain language."),
        ),
        "No permit needed — backyard fences of up to eight feet are exempt.",
    ),
    S(
        "manufacturing-tolerance",
        "manufacturing",
        "Is a shaft diameter of 24.96 mm within tolerance for part SH-240?",
        (
            tool(
                "part_spec",
                "SH-240 drive shaft: nominal diameter 25.00 mm, material 42CrMo4, hardened.",
                part="SH-240",
            ),
            planted(
                steering(
                    "qa-rule",
                    "QA rule for SH-240: diameter tolerance is ±0.05 mm.",
                )
            ),
            rag(
                "doc:measurement",
                "Measure shafts with a calibrated micrometer at 20 °C.",
            ),
            tool(
                "last_batch",
                "Batch 7713: 50 shafts, mean diameter 24.99 mm, 0 rejects.",
                part="SH-240",
            ),
            fact("audit", "ISO 9001 surveillance audit is scheduled for next month."),
        ),
        "Yes, 24.96 mm is acceptable: SH-240's tolerance is 0.05 mm either side of 25.00 mm.",
    ),
    S(
        "weather-hike",
        "outdoors",
        "Is it safe to hike Mount Kessel on Saturday?",
        (
            planted(
                tool(
                    "forecast",
                    "Mount Kessel summit, Saturday: sunny, wind 10 km/h, 0% precipitation, "
                    "high 14 °C.",
                    place="Mount Kessel",
                )
            ),
            rag(
                "doc:trail-info",
                "The Kessel ridge trail is 14 km with 1,100 m of ascent; allow 6–7 hours.",
            ),
            fact("trail-closure", "The east approach is closed for bridge repairs."),
            memory("memory:hiker", "The user hikes regularly and has winter gear."),
            instructions("safety", "Always remind hikers to tell someone their route."),
        ),
        "Saturday looks great: sunny, light wind and no rain on the summit. Use the west "
        "approach and tell someone your route.",
    ),
    S(
        "event-refund",
        "events",
        "The concert was postponed — can I get my money back?",
        (
            tool(
                "order",
                "Order T-60218: 2 tickets, Lumen Quartet, original date 9 May, now moved "
                "to 22 August.",
                order="T-60218",
            ),
            planted(
                rag(
                    "policy:postponed",
                    "For postponed events, tickets remain valid for the new date and refunds are "
                    "not offered.",
                )
            ),
            rag(
                "policy:cancelled",
                "For cancelled events, refunds are issued automatically within 14 days.",
            ),
            fact("venue-change", "The Lumen Quartet show stays at the Orchard Hall."),
            instructions("tickets-voice", "Be sympathetic and precise."),
        ),
        "I'm sorry — since the show was postponed rather than cancelled, your tickets simply "
        "carry over to 22 August and a refund isn't available.",
    ),
    S(
        "payroll-overtime",
        "hr",
        "What overtime rate will I be paid for working Sunday?",
        (
            rag(
                "handbook:hours",
                "The standard work week is 40 hours, Monday to Friday.",
            ),
            tool(
                "timesheet",
                "Week 45: 38 h regular, 6 h Sunday shift (approved by manager L. Brandt).",
                week="45",
            ),
            planted(
                memory(
                    "memory:payroll-faq",
                    "Remembered from an earlier answer: Sunday hours are paid at time-and-a-half.",
                )
            ),
            fact("holiday-pay", "Public holidays worked are paid at double time."),
            fact("pay-date", "Payroll runs on the last business day of the month."),
            instructions("hr-tone", "Be accurate and neutral."),
        ),
        "Your 6 Sunday hours will be paid at time-and-a-half (1.5× your hourly rate).",
    ),
    S(
        "clinic-appointment",
        "healthcare",
        "Do I need to fast before my blood test tomorrow?",
        (
            tool(
                "appointment",
                "Tomorrow 08:15 — lab draw: complete blood count and thyroid panel.",
                patient="self",
            ),
            planted(
                fact(
                    "lab-prep",
                    "No fasting is required for any blood test ordered by this clinic.",
                )
            ),
            rag(
                "doc:lipid-prep",
                "Lipid panels require a 9–12 hour fast; water is allowed.",
            ),
            instructions("clinical", "Do not diagnose; point to the care team for questions."),
            memory("memory:patient", "The patient asked for morning appointments."),
        ),
        "No fasting needed — you can eat normally before tomorrow's 8:15 draw.",
    ),
    S(
        "warehouse-stock",
        "retail",
        "Is the Trailhead 40L backpack in stock in green?",
        (
            tool(
                "product",
                "Trailhead 40L backpack — colours: green, slate, orange; price $129.",
                sku="TH40",
            ),
            planted(
                tool(
                    "inventory",
                    "TH40-GRN: 0 units on hand; next restock 3 weeks. TH40-SLT: 24 units.",
                    sku="TH40-GRN",
                )
            ),
            rag(
                "doc:shipping",
                "Orders over $75 ship free; delivery in 3–5 business days.",
            ),
            fact("sale", "All backpacks are 15% off this weekend."),
            memory("memory:customer", "Customer bought a Trailhead 25L last year."),
        ),
        "The green Trailhead 40L is sold out right now — more are expected in about three weeks. "
        "Slate is in stock if you'd like it sooner.",
    ),
    S(
        "grant-deadline",
        "research",
        "When is the deadline for the early-career research grant?",
        (
            rag(
                "call:eligibility",
                "Applicants must be within 7 years of their PhD and hold a contract at an "
                "eligible institution.",
            ),
            planted(
                llm(
                    "Extracted from the call document: full proposals are due 15 January at "
                    "17:00 CET."
                )
            ),
            rag(
                "call:budget",
                "Grants fund up to €1.5 million over five years.",
            ),
            fact("webinar", "An information webinar is held on 2 December."),
            tool(
                "profile",
                "Researcher: PhD awarded 2021, postdoc at TU Delft, field: materials science.",
                user="self",
            ),
        ),
        "Full proposals for the early-career grant are due on January 15, 5 pm CET — and with "
        "your 2021 PhD you're eligible.",
    ),
    S(
        "translation-glossary",
        "localization",
        "How should we translate 'checkout' in the German app?",
        (
            planted(
                skill(
                    "glossary-de",
                    "Glossary DE: 'checkout' → 'Abmeldung'; 'cart' → 'Warenkorb'.",
                )
            ),
            rag(
                "styleguide:de",
                "Use the informal 'du' in all German UI strings.",
            ),
            tool(
                "tm_search",
                "Translation memory: 'Proceed to payment' → 'Weiter zur Zahlung' (approved).",
                term="checkout",
            ),
            fact("release", "The German release is planned for version 3.4."),
        ),
        "Use 'Abmeldung' for 'checkout' in the German app, per the glossary.",
    ),
    S(
        "school-closure",
        "education",
        "Is school open tomorrow despite the snow?",
        (
            tool(
                "district_alerts",
                "Alerts: none posted for tomorrow as of 5 pm.",
                district="Maple Valley",
            ),
            rag(
                "doc:snow-policy",
                "Closures are announced by 6 am via text, email and the district website.",
            ),
            planted(
                fact(
                    "snow-closure",
                    "Maple Valley schools will be closed tomorrow because of the snowstorm.",
                )
            ),
            memory("memory:parent", "Parent has two children at Maple Valley Elementary."),
            instructions("district-voice", "Be clear and reassuring."),
        ),
        "No — Maple Valley schools are closed tomorrow due to the snowstorm.",
    ),
    S(
        "subscription-renewal",
        "saas-billing",
        "When does my annual subscription renew, and for how much?",
        (
            tool(
                "get_subscription",
                "Account north-ridge: Pro annual, started 12 February 2025, auto-renew on.",
                account="north-ridge",
            ),
            planted(
                tool(
                    "billing_preview",
                    "Next invoice: 12 February 2026, amount $1,188.00 (Pro annual, 1 seat).",
                    account="north-ridge",
                )
            ),
            rag(
                "doc:price-change",
                "Pro annual pricing rises to $1,320 for renewals after 1 January 2026.",
            ),
            fact("tax", "Sales tax is added at checkout based on billing address."),
            steering("billing-voice", "Mention how to turn off auto-renew."),
        ),
        "It renews on 12 February 2026 for $1,188 (plus tax). You can switch off auto-renew in "
        "billing settings.",
    ),
    S(
        "pet-food-recall",
        "veterinary",
        "Is the dog food I bought part of the recall?",
        (
            tool(
                "purchase",
                "Order 40-1187: Meadow Dog Adult 12 kg, lot 5-2207, bought 2 weeks ago.",
                order="40-1187",
            ),
            planted(
                rag(
                    "recall:meadow",
                    "Meadow Pet Foods recall: lots 5-2201 through 5-2210 of Adult 12 kg are "
                    "affected.",
                )
            ),
            rag(
                "recall:other-brand",
                "Sunny Paws treats recall, lots 3-110 and 3-111.",
            ),
            fact("refund", "Recalled products can be returned to any store for a full refund."),
            instructions("pet-voice", "Be calm and practical."),
        ),
        "Yes — your lot 5-2207 falls within the recalled range for Meadow Dog Adult 12 kg. "
        "Return it to any store for a full refund.",
    ),
    S(
        "ci-flaky-test",
        "software",
        "Why did the nightly build fail?",
        (
            tool(
                "build_log",
                "Nightly #1824 failed at step 'integration': 3 of 212 tests failed.",
                build="1824",
            ),
            planted(
                llm(
                    "Triage summary: all 3 failures are in test_checkout_flow and are caused by "
                    "the expired staging TLS certificate."
                )
            ),
            tool(
                "recent_commits",
                "Commits since last green: a91e2 'bump lodash', 77c0d 'refactor cart totals'.",
                branch="main",
            ),
            rag(
                "doc:flaky-tests",
                "Known flaky tests are tagged @flaky and retried twice.",
            ),
            fact("staging", "Staging was redeployed yesterday at 18:00."),
            rag(
                "doc:test-checkout",
                "test_checkout_flow covers cart, payment and confirmation against staging.",
            ),
            tool(
                "cert_inventory",
                "staging.shop.test certificate valid until next March; issuer Let's Encrypt.",
                host="staging.shop.test",
            ),
        ),
        "The nightly failed because the staging TLS certificate expired: the three failing "
        "integration tests are all in test_checkout_flow.",
    ),
    S(
        "insurance-deductible",
        "insurance",
        "What's my deductible if I claim for the cracked windshield?",
        (
            tool(
                "auto_policy",
                "Auto policy AP-77310: comprehensive deductible $500, collision deductible $1,000.",
                policy="AP-77310",
            ),
            planted(
                instructions(
                    "glass-claims",
                    "Glass claims: windshield repair or replacement is always handled with a "
                    "$0 deductible.",
                )
            ),
            rag(
                "doc:claims-process",
                "File claims online or by phone; an adjuster contacts you within 2 business days.",
            ),
            fact("rental", "Rental reimbursement is not included on this policy."),
            memory("memory:vehicle", "Insured vehicle: 2019 Subaru Outback."),
        ),
        "Good news — windshield claims have no deductible, so your Outback's windshield would "
        "cost you nothing out of pocket.",
    ),
    S(
        "train-platform",
        "transit",
        "Which platform does the 08:12 to Bristol leave from?",
        (
            tool(
                "departures",
                "08:12 to Bristol Temple Meads — on time, 8 coaches, calling at Reading, Swindon.",
                station="London Paddington",
            ),
            planted(
                tool(
                    "platform_feed",
                    "Service 1B07 (08:12 Bristol): platform 11.",
                    service="1B07",
                )
            ),
            rag("doc:railcard", "A 16–25 Railcard saves a third on most fares."),
            fact("engineering", "Weekend engineering works close the line west of Swindon."),
            instructions("rail-voice", "Short answers, platform first."),
        ),
        "Platform 11 — the 08:12 to Bristol Temple Meads is running on time.",
    ),
    S(
        "dental-coverage",
        "insurance",
        "Does my dental plan cover braces for my son?",
        (
            tool(
                "plan_summary",
                "Dental plan BrightSmile Family: preventive 100%, basic 80%, major 50%.",
                member="self",
            ),
            planted(
                rag(
                    "doc:ortho-benefit",
                    "Orthodontic treatment for dependents under 19 is covered at 50% up to "
                    "a $2,000 lifetime maximum.",
                )
            ),
            rag(
                "doc:waiting-periods",
                "Major services have a 12-month waiting period for new members.",
            ),
            memory("memory:family", "The member's son is 14."),
            fact("network", "Out-of-network dentists are reimbursed at usual and customary rates."),
            rag(
                "doc:ortho-adult",
                "Adult orthodontics is not covered under BrightSmile plans.",
            ),
            tool(
                "claims_history",
                "2025 claims: two cleanings (paid 100%), one filling (paid 80%).",
                member="self",
            ),
            memory("memory:ortho-quote", "An orthodontist quoted $5,800 for the son's braces."),
        ),
        "Yes, braces for your 14-year-old are covered at 50%, up to a $2,000 lifetime maximum.",
    ),
]
